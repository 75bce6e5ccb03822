import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { CLIENT_CAPABILITIES_META_KEY } from "./revision";

/** The 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`), as client and server declare it. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
export type TaskMethod = "tasks/get" | "tasks/update" | "tasks/cancel";
/**
 * The experimental tasks of 2025-11-25 (in the core protocol there): a task-augmented `tools/call` answers
 * `{ task }`, and these poll, wait for, list and cancel what it started.
 */
export type TaskMethod2025 = "tasks/get" | "tasks/result" | "tasks/list" | "tasks/cancel";

/**
 * Where a task result travels inside the SDK: v2 2.4.0 knows `resultType: "task"` by name only and rejects it
 * ("unsupported result type"), so the connection's transport hands it to the SDK as a complete result carrying
 * the task under this `_meta` key, and `callTool` takes it out again.
 */
const TASK_CARRIER = "dev.switchboard/task";

/** A result taken as it comes: the upstream's answer to a request of an extension the SDK has no schema for. */
export const ANY_RESULT = z.record(z.string(), z.unknown());

/** The params of a request whose client declares the tasks extension (per request, as 2026-07-28 allows). */
export function withTasks<P extends { _meta?: Record<string, unknown> }>(params: P, declared: ClientCapabilities): P {
  const capabilities = { ...declared, extensions: { ...declared.extensions, [TASKS_EXTENSION]: {} } };
  return { ...params, _meta: { ...params._meta, [CLIENT_CAPABILITIES_META_KEY]: capabilities } };
}

/** A tool call's result as the upstream sent it: the task `carryTasks` carried through the SDK, if any. */
export function uncarryTask(result: unknown): unknown {
  const task = (result as { _meta?: Record<string, unknown> })._meta?.[TASK_CARRIER];
  return task ?? result;
}

/**
 * Lets a task result (`resultType: "task"`) through SDK v2, which would reject it: a response carrying one
 * reaches the SDK as a complete tool result with the task in `_meta` (see `TASK_CARRIER`).
 */
export function carryTasks(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) return;
  transport.onmessage = (message, extra) => {
    const result = "result" in message ? (message.result as Record<string, unknown>) : undefined;
    if (result?.resultType !== "task") return deliver(message, extra);
    const { content, ...task } = result;
    // The SDK 1.x server behind a 2026 one may add an empty content array; a task has none.
    const carried = Array.isArray(content) && content.length === 0 ? task : result;
    deliver(
      { ...message, result: { resultType: "complete", content: [], _meta: { [TASK_CARRIER]: carried } } } as never,
      extra,
    );
  };
}
