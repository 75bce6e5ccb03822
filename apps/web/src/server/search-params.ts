import "server-only";

/** A list page's `?q=` (the search box's text, `useUrlSearch`), trimmed; "" when absent. */
export function searchOf(params: { q?: string | string[] }): string {
  const q = Array.isArray(params.q) ? params.q[0] : params.q;
  return (q ?? "").trim();
}
