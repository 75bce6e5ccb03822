"use client";

import type { HTMLAttributes, ReactNode, TableHTMLAttributes } from "react";
import { errorMessage } from "~/lib/errors";

/** What the table needs of its log's query: a `useInfiniteQuery` result will do. */
interface LogQuery {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => unknown;
}

/**
 * A log read a page at a time, newest first (the request log, the audit trail): a skeleton while it loads, its
 * error or "nothing" on a card of their own, else a card with the table and a button for the older entries. The
 * caller gives the header cells and each entry's rows (its own, and its details when open).
 */
export function LogTable<T>({
  query,
  errorPrefix,
  empty,
  frame,
  table,
  head,
  rows,
  row,
  before,
  olderLabel,
}: {
  query: LogQuery;
  /** Before the query's error message: "Could not load the audit trail: ". */
  errorPrefix: string;
  /** The card's text when there are no entries. */
  empty: ReactNode;
  /** The card around the table: its class beside `card`, and any other attribute. */
  frame?: HTMLAttributes<HTMLDivElement>;
  table: TableHTMLAttributes<HTMLTableElement>;
  /** The header row's cells. */
  head: ReactNode;
  rows: readonly T[];
  /** An entry's rows, with its key. */
  row: (entry: T) => ReactNode;
  /** Shown on the card above the table. */
  before?: ReactNode;
  /** The button that loads the next page: "Older requests". */
  olderLabel: string;
}) {
  if (query.isPending)
    return (
      <div className="card stack" aria-busy="true">
        <div className="skeleton" />
        <div className="skeleton" />
      </div>
    );
  if (query.isError)
    return (
      <p className="error card" role="alert">
        {errorPrefix}
        {errorMessage(query.error)}
      </p>
    );
  if (rows.length === 0) return <div className="card empty">{empty}</div>;
  const { className, ...frameRest } = frame ?? {};
  return (
    <div className={className ? `card ${className}` : "card"} {...frameRest}>
      {before}
      <table {...table}>
        <thead>
          <tr>{head}</tr>
        </thead>
        <tbody>{rows.map((r) => row(r))}</tbody>
      </table>
      {query.hasNextPage && (
        <button
          type="button"
          className="secondary"
          onClick={() => query.fetchNextPage()}
          disabled={query.isFetchingNextPage}
        >
          {olderLabel}
        </button>
      )}
    </div>
  );
}
