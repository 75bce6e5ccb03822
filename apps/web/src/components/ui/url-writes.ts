/**
 * The page's address as the console last wrote it, until the router commits it. `router.replace` does not
 * update `useSearchParams()` (nor `location`) at once, so a write made before the previous one landed (a sort,
 * then a debounced search; a tab in one component, a filter in another) must build on the writes still in
 * flight, or it replaces the address without them. One instance serves every `useUrlState` on the page.
 */
export class UrlWrites {
  private pending: string[] = [];
  private seen: string | null = null;

  /**
   * The router now shows `current` ("path?query"): the writes up to the one it shows have landed. An address
   * this page did not write (a link, Back) drops them all. Every hook on the page reports the same address; the
   * first report counts.
   */
  observe(current: string) {
    if (current === this.seen) return;
    this.seen = current;
    const i = this.pending.indexOf(current);
    this.pending = i === -1 ? [] : this.pending.slice(i + 1);
  }

  /**
   * The address a new write builds on: the last one written and not yet committed, else the last one the router
   * showed (a debounced write may carry an older `current` from the render that scheduled it), else `current`.
   */
  base(current: string): string {
    const last = this.pending.at(-1) ?? this.seen;
    return last !== null && last !== undefined && pathOf(last) === pathOf(current) ? last : current;
  }

  /** Applies `changes` on top of `base(current)` (a value equal to its default leaves the address), records it. */
  write(current: string, changes: Record<string, string>, defaults: Record<string, string>): string {
    const base = this.base(current);
    const path = pathOf(base);
    const params = new URLSearchParams(base.slice(path.length + 1));
    for (const [key, value] of Object.entries(changes)) {
      if (value === "" || value === defaults[key]) params.delete(key);
      else params.set(key, value);
    }
    const query = params.toString();
    const next = `${path}?${query}`;
    this.pending.push(next);
    return query ? next : path;
  }
}

function pathOf(address: string): string {
  const i = address.indexOf("?");
  return i === -1 ? address : address.slice(0, i);
}
