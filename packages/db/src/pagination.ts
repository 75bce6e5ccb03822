/**
 * Cursor pagination by row id, the one way every console list pages: ask for one row more than the page holds
 * (its presence says another page follows), and continue after the last row shown.
 */
export interface PageArgs {
  cursor?: string | null;
  limit: number;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** The `findMany` arguments of one page (spread them next to `where`, `select` and `orderBy`). */
export function pageQuery({ cursor, limit }: PageArgs): { take: number; cursor?: { id: string }; skip?: number } {
  return { take: limit + 1, ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}) };
}

/** The page out of the rows `pageQuery` fetched, and the cursor of the next page (null on the last one). */
export function toPage<T extends { id: string }>(rows: T[], limit: number): Page<T> {
  const items = rows.slice(0, limit);
  return { items, nextCursor: rows.length > limit ? (items.at(-1)?.id ?? null) : null };
}
