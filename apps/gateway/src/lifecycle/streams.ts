import type { ServerResponse } from "node:http";

/**
 * Responses that stay open as long as their client listens (a session's GET stream, a 2026-07-28
 * `subscriptions/listen`, the console's live updates over SSE). They are not calls in flight: a process that
 * shuts down ends them at once, and their clients reconnect, to another process.
 */
const open = new Map<ServerResponse, () => void>();
let ending = false;

/** Marks `res` as a long-lived stream; `end` closes it (default: `res.end()`). */
export function longLived(res: ServerResponse, end: () => void = () => res.end()): void {
  if (ending) return end();
  open.set(res, end);
  res.once("close", () => open.delete(res));
}

/** Ends every long-lived stream, now and from now on. */
export function endLongLived(): number {
  ending = true;
  const ends = [...open.values()];
  open.clear();
  for (const end of ends) {
    try {
      end();
    } catch {
      // already gone
    }
  }
  return ends.length;
}
