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

/**
 * Every row a query matches, a batch at a time (exports: the whole set is never held): `fetch` reads one batch
 * with `pageQuery`-style arguments (`take`, and after the first the cursor of the last row read).
 */
export async function* streamRows<T extends { id: string }>(
  fetch: (args: { take: number; cursor?: { id: string }; skip?: number }) => Promise<T[]>,
  batch = 1000,
): AsyncGenerator<T> {
  let cursor: string | null = null;
  for (;;) {
    const rows: T[] = await fetch({ take: batch, ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}) });
    if (rows.length === 0) return;
    yield* rows;
    if (rows.length < batch) return;
    cursor = rows.at(-1)!.id;
  }
}
