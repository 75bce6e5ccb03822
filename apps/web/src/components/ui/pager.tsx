"use client";

/** Previous / "Page 2 of 5" / Next under a paginated list; hidden when everything fits on one page. */
export function Pager({
  page,
  pageCount,
  onPage,
  label,
}: {
  page: number;
  pageCount: number;
  onPage: (page: number) => void;
  label: string;
}) {
  if (pageCount <= 1) return null;
  return (
    <nav className="row pager" aria-label={label}>
      <button type="button" className="secondary small" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span className="muted small" aria-current="page">
        Page {page} of {pageCount}
      </span>
      <button type="button" className="secondary small" disabled={page >= pageCount} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}

/** The slice of `rows` on `page` (1-based), the page clamped into range. */
export function pageOf<T>(rows: readonly T[], page: number, size: number) {
  const pageCount = Math.max(1, Math.ceil(rows.length / size));
  const current = Math.min(Math.max(1, page), pageCount);
  return { rows: rows.slice((current - 1) * size, current * size), page: current, pageCount };
}
