import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { InputRetry } from "../upstream";
import { isApprovalInputKey } from "../governance";
import { canAnswer } from "./session-upstreams";
import type { ProxyServerOptions } from "./server-options";

/**
 * A 2026-07-28 client's call to a 2026 upstream (`passInputRequired`): its `input_required` comes back, the
 * client's retry goes up, and a task the upstream answers with comes back under the id its client polls it by.
 * Without `passInputRequired`, calls go up and results come back as they are.
 */
export interface InputPassing {
  /** The session passes `input_required` through (its client speaks 2026-07-28). */
  readonly active: boolean;
  /** A relayed call's params and options, with the client's retry and the pass-through options when active. */
  upstreamCall<P>(relayed: { params: P; options: RequestOptions }): { params: P; options: RequestOptions };
  /** A task an upstream of `instanceId` answered a call with, under the id its client polls it by. */
  passedTask<T>(instanceId: string, result: T): T;
  /**
   * A 2026 upstream's `input_required` passed to the client asks only what the client declared (a server that
   * asks anyway is refused here, whatever it was offered): the refusal's message, or undefined when it may pass.
   */
  unanswerableInput(result: unknown): string | undefined;
  /** For resources/read and prompts/get: the result, or the refusal of what the client cannot answer. */
  answerable<T>(result: T): T;
}

export function inputPassing(passing: ProxyServerOptions["passInputRequired"], server: Server): InputPassing {
  // Answers to our own approval elicitation (see admission.ts) are ours: the upstream never asked them.
  const upstreamRetry = ((): InputRetry | undefined => {
    const retry = passing?.retry;
    if (!retry) return undefined;
    const answers = Object.entries(retry.inputResponses ?? {}).filter(([key]) => !isApprovalInputKey(key));
    if (answers.length === 0 && retry.requestState === undefined) return undefined;
    return { ...retry, inputResponses: Object.fromEntries(answers) };
  })();
  const unanswerableInput = (result: unknown): string | undefined => {
    if (!passing || (result as { resultType?: unknown } | undefined)?.resultType !== "input_required") return undefined;
    const asked = (result as { inputRequests?: unknown }).inputRequests;
    const requests = typeof asked === "object" && asked !== null ? Object.values(asked) : [];
    const declared = server.getClientCapabilities();
    for (const request of requests) {
      const method = (request as { method?: unknown } | null)?.method;
      if (typeof method !== "string" || !canAnswer(declared, request as { method: string; params?: unknown }))
        return `The client using this connection cannot answer ${typeof method === "string" ? method : "what the server asked"}`;
    }
    return undefined;
  };
  return {
    active: passing !== undefined,
    upstreamCall: (relayed) =>
      passing
        ? {
            params: { ...relayed.params, ...upstreamRetry },
            options: { ...relayed.options, passInputRequired: true, passTasks: passing.tasks !== undefined },
          }
        : relayed,
    passedTask: (instanceId, result) => {
      const task = result as { resultType?: unknown; taskId?: unknown };
      if (!passing?.tasks || task.resultType !== "task" || typeof task.taskId !== "string") return result;
      return { ...result, taskId: passing.tasks.wrap(instanceId, task.taskId) };
    },
    unanswerableInput,
    answerable: (result) => {
      const refused = unanswerableInput(result);
      if (refused) throw new McpError(ErrorCode.InvalidRequest, refused);
      return result;
    },
  };
}
