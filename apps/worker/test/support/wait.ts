import { setTimeout as delay } from "node:timers/promises";

/** Polls `check` until it returns true, or throws after `timeoutMs` (for hooks, where expect.poll is not allowed). */
export async function waitUntil(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000, intervalMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(intervalMs);
  }
}
