"use client";

/**
 * The end of an infinite query's list: "Load more" while there is a next page ("Loading…" and disabled while it
 * is fetched), then nothing, or `doneLabel` when the caller says so once everything is loaded.
 */
export function LoadMore({
  query,
  doneLabel,
  wrap = false,
}: {
  query: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => unknown };
  doneLabel?: string;
  /** Put the button in its own block (a `<div>`) rather than inline. */
  wrap?: boolean;
}) {
  if (!query.hasNextPage) return doneLabel ? <p className="muted">{doneLabel}</p> : null;
  const button = (
    <button
      type="button"
      className="secondary"
      onClick={() => void query.fetchNextPage()}
      disabled={query.isFetchingNextPage}
    >
      {query.isFetchingNextPage ? "Loading…" : "Load more"}
    </button>
  );
  return wrap ? <div>{button}</div> : button;
}
