import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/**
 * The SDK's Server, keeping one rule of 2025-11-25 it does not: a receiver that does not declare task-augmented
 * `tools/call` (`capabilities.tasks.requests.tools.call`) MUST process such a call normally, ignoring its `task`
 * (basic/utilities/tasks, "Task Support and Handling"). The SDK checks the answer as a CreateTaskResult whenever
 * `task` is present, whatever was declared, and so refuses the call's real result (-32602). A server that declares
 * no task calls has `task` taken out of its `tools/call` requests before the SDK reads them.
 */
export class ProxySdkServer extends Server {
  /** Whether the server declares task-augmented tools/call (its capabilities are fixed when it is made). */
  private readonly taskCalls: boolean;

  constructor(...args: ConstructorParameters<typeof Server>) {
    super(...args);
    this.taskCalls = args[1]?.capabilities?.tasks?.requests?.tools?.call !== undefined;
  }

  override async connect(transport: Transport): Promise<void> {
    await super.connect(transport);
    if (this.taskCalls) return;
    const receive = transport.onmessage;
    transport.onmessage = (message, extra) => receive?.(withoutTask(message), extra);
  }
}

function withoutTask(message: JSONRPCMessage): JSONRPCMessage {
  if (!("method" in message) || message.method !== "tools/call" || !("id" in message)) return message;
  const params = message.params as Record<string, unknown> | undefined;
  if (params?.task === undefined) return message;
  const { task: _ignored, ...rest } = params;
  return { ...message, params: rest };
}
