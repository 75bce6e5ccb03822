"use client";

import type { ReactNode } from "react";
import { errorMessage } from "~/lib/errors";
import { FormError } from "~/components/ui/form-error";

/** What the table needs of its query: a `useQuery` or `useInfiniteQuery` result will do. */
interface ListQuery {
  isPending: boolean;
  isError: boolean;
  error: unknown;
}

/**
 * A card's list of records: while its query loads a skeleton, then its error, "nothing yet" or the table. The
 * table is `table.responsive` (console.css): on a phone the header row is only for screen readers and each row is
 * a block whose cells show their column's name from `data-label`. So a row, from `row`, starts with a
 * `<th scope="row">` naming the record and labels each cell with its column (`<td data-label="Email">`), the
 * actions cell with `data-label=""`. An action's error (revoke, remove) stands above it all.
 */
export function ResponsiveTable<T>({
  label,
  columns,
  actions = false,
  query,
  rows,
  row,
  empty,
  actionError,
  errorPrefix,
  loading = <div className="skeleton" aria-busy="true" />,
  scrollsSideways = false,
}: {
  /** The table's accessible name. */
  label: string;
  /** The column headers, the row header's first. */
  columns: readonly string[];
  /** A last column of buttons, its header for screen readers only. */
  actions?: boolean;
  query: ListQuery;
  /** The records, once the query has them. */
  rows: readonly T[] | undefined;
  /** One `<tr>` (with its key) a record. */
  row: (record: T) => ReactNode;
  /** The line shown when there are no records: "No tokens yet." */
  empty: ReactNode;
  actionError?: unknown;
  /** Before the query's error message: "Could not load members: ". */
  errorPrefix?: string;
  loading?: ReactNode;
  /** Wide cells: the table scrolls inside the card rather than widening it. */
  scrollsSideways?: boolean;
}) {
  const table = (
    <table className="responsive" aria-label={label}>
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c} scope="col">
              {c}
            </th>
          ))}
          {actions && (
            <th scope="col">
              <span className="sr-only">Actions</span>
            </th>
          )}
        </tr>
      </thead>
      <tbody>{rows?.map((r) => row(r))}</tbody>
    </table>
  );
  return (
    <>
      {actionError ? <FormError error={actionError} /> : null}
      {query.isPending ? (
        loading
      ) : query.isError ? (
        <p className="error" role="alert">
          {errorPrefix}
          {errorMessage(query.error)}
        </p>
      ) : !rows?.length ? (
        <p className="empty">{empty}</p>
      ) : scrollsSideways ? (
        // A region that scrolls is one the keyboard can reach and scroll (axe: scrollable-region-focusable).
        <div className="table-scroll" tabIndex={0} role="region" aria-label={`${label}, scrolls sideways`}>
          {table}
        </div>
      ) : (
        table
      )}
    </>
  );
}
