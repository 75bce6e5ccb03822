/**
 * A set whose members expire after `ttlMs` and which holds at most `max` of them (the oldest addition goes
 * first): for per-instance memories in a module that lives as long as the worker.
 */
export class ExpiringSet {
  /** member -> expiry time (ms); insertion order is age order. */
  private readonly until = new Map<string, number>();

  constructor(private readonly opts: { max: number; ttlMs: number }) {}

  has(key: string, now = Date.now()): boolean {
    const until = this.until.get(key);
    if (until === undefined) return false;
    if (until > now) return true;
    this.until.delete(key);
    return false;
  }

  add(key: string, now = Date.now()): void {
    this.until.delete(key);
    this.until.set(key, now + this.opts.ttlMs);
    while (this.until.size > this.opts.max) this.until.delete(this.until.keys().next().value!);
  }

  get size(): number {
    return this.until.size;
  }
}
