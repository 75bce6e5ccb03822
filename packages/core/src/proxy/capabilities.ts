import type { ServerCapabilities } from "@modelcontextprotocol/sdk/types.js";
import type { ProxyServerOptions } from "./server-options";

/** What a 2025 session declares when one of its upstreams offers task-augmented tool calls (`handlers/tasks.ts`). */
export const SESSION_TASKS_CAPABILITY: NonNullable<ServerCapabilities["tasks"]> = {
  list: {},
  cancel: {},
  requests: { tools: { call: {} } },
};

/**
 * What the proxy declares to its clients (at initialize in 2025-11-25, in `server/discover` in 2026-07-28): list
 * changes always, completions and resource subscriptions when one of the member's upstreams offers them.
 */
export function proxyCapabilities(offers: ProxyServerOptions["offers"] = {}): ServerCapabilities {
  return {
    tools: { listChanged: true },
    resources: { listChanged: true, ...(offers.resourceSubscribe ? { subscribe: true } : {}) },
    prompts: { listChanged: true },
    logging: {},
    ...(offers.completions ? { completions: {} } : {}),
    // 2025-11-25's experimental tasks, offered to a 2025 session when one of its upstreams offers task calls.
    ...(offers.taskCalls ? { tasks: SESSION_TASKS_CAPABILITY } : {}),
  };
}
