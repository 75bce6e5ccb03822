/** Pages a server may return before we decide its cursors loop; no real catalogue comes close. */
export const MAX_PAGES = 1_000;

/**
 * Follows `nextCursor` to the last page and concatenates the items. Stops with an error on a cursor seen
 * before, so a server that hands back the same cursor forever cannot hang discovery.
 */
export async function collectPages<T>(
  fetchPage: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string }>,
  what: string,
): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await fetchPage(cursor);
    items.push(...result.items);
    if (result.nextCursor === undefined || result.nextCursor === "") return items;
    if (seen.has(result.nextCursor)) throw new Error(`${what}: server repeated cursor ${result.nextCursor}`);
    seen.add(result.nextCursor);
    cursor = result.nextCursor;
  }
  throw new Error(`${what}: more than ${MAX_PAGES} pages`);
}
