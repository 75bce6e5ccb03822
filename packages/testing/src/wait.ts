import { setTimeout as delay } from "node:timers/promises";

/**
 * Polls `check` until it returns true, or throws after `timeoutMs` naming what it waited for. For hooks, support
 * code and conditions that are not one value (in a test body, `expect.poll` says the same).
 */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
  intervalMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(intervalMs);
  }
}
