import { env } from "@switchboard/runtime/env";
import { upstreamPool } from "./upstreams";

/**
 * `notifications/tasks` for a `subscriptions/listen` that names tasks (the tasks extension, 2026-07-28): the
 * gateway polls the owning upstream's `tasks/get` and sends the task as it stands each time it changes, until it
 * ends or the stream closes. Polling, not relaying the upstream's own notifications: they are optional for a
 * server, so an upstream that never sends them still gives the client a stream that tells it when to stop
 * polling; and nothing here outlives the stream.
 */

/** A task the stream agreed to watch: our id (as the client knows it) and the upstream's. */
export interface WatchedTask {
  wrapped: string;
  instanceId: string;
  taskId: string;
}

const TERMINAL = new Set(["completed", "failed", "cancelled"]);
/** Bounds on the upstream's `pollIntervalMs`: not a busy loop, and not so slow the stream is late to its end. */
const MIN_POLL_MS = 250;
const MAX_POLL_MS = 5_000;
const DEFAULT_POLL_MS = 1_000;
/** Consecutive failures to reach the upstream before the stream stops watching the task. */
const MAX_FAILURES = 3;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** What tells one state of a task from the next: its status, message and outstanding input requests. */
function stateOf(task: Record<string, unknown>): string {
  const requests = task.inputRequests;
  const keys = typeof requests === "object" && requests !== null ? Object.keys(requests).sort() : [];
  return JSON.stringify([task.status, task.statusMessage ?? null, keys]);
}

/** Watches one task until it ends, the upstream stays unreachable, or `closed()`; `send` gets each new state. */
export async function watchTask(
  task: WatchedTask,
  send: (params: Record<string, unknown>) => Promise<void>,
  closed: () => boolean,
): Promise<void> {
  let last: string | undefined;
  let failures = 0;
  while (!closed()) {
    let answer: Record<string, unknown>;
    try {
      const client = await upstreamPool().get(task.instanceId);
      answer = await client.taskRequest("tasks/get", { taskId: task.taskId }, { timeout: env().MCP_CALL_TIMEOUT_MS });
      failures = 0;
    } catch {
      if (++failures >= MAX_FAILURES) return;
      await sleep(MAX_POLL_MS);
      continue;
    }
    if (closed()) return;
    // The task as the client polls it: our id, none of the upstream's envelope.
    const { resultType: _type, _meta: _upstreamMeta, ...state } = answer;
    const shown: Record<string, unknown> = { ...state, taskId: task.wrapped };
    const now = stateOf(shown);
    if (now !== last) {
      last = now;
      await send(shown);
    }
    if (TERMINAL.has(String(shown.status))) return;
    const hinted = typeof shown.pollIntervalMs === "number" ? shown.pollIntervalMs : DEFAULT_POLL_MS;
    await sleep(Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, hinted)));
  }
}
