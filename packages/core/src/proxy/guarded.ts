import type { CallToolResult, ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import {
  GUARDRAIL_BLOCKED_CODE,
  guardrailRefusalMessage,
  type GuardedCall,
  type GuardrailFinding,
  type GuardrailGate,
} from "../guardrails";
import { recordRefusal, type ForwardDeps } from "./forward";
import type { Route } from "./router";

/**
 * Guardrails around one forwarded call: its arguments are scanned before it goes (block refuses it, redact sends
 * them redacted), its answer after each attempt (block withholds it, redact rewrites it). The request log gets
 * the arguments with every match replaced (flagged ones too) and the findings, never a matched value.
 */
export interface CallGuard {
  /** The arguments to send upstream. */
  sent: Record<string, unknown> | undefined;
  /** The arguments for the request log. */
  logged: unknown;
  /** Everything found so far (arguments, then the last attempt's answer). */
  findings(): readonly GuardrailFinding[] | undefined;
  /** A tool result: as it may go to the client (redacted; a tool error saying it was withheld when blocked). */
  result<T>(value: T): Promise<T>;
  /** Resource contents: as they may go to the client (redacted; none when blocked: see `withheld`). */
  contents<T>(value: T): Promise<T>;
  /** The sentence for the client when the last answer was withheld. */
  withheld(): string | undefined;
}

const UNGUARDED = (args: Record<string, unknown> | undefined): CallGuard => ({
  sent: args,
  logged: args,
  findings: () => undefined,
  result: async (value) => value,
  contents: async (value) => value,
  withheld: () => undefined,
});

/** A refusal the route sends as a JSON-RPC error (-32030). */
function guardrailError(message: string): Error {
  return Object.assign(new Error(message), { code: GUARDRAIL_BLOCKED_CODE });
}

export async function guardCall(
  gate: GuardrailGate | undefined,
  deps: Pick<ForwardDeps, "member" | "calls" | "metrics" | "now">,
  route: Route,
  kind: "tool" | "resource",
  requested: string,
  args: Record<string, unknown> | undefined,
): Promise<CallGuard> {
  if (!gate) return UNGUARDED(args);
  const { instance, target } = route;
  const call = (where: GuardedCall["where"]): GuardedCall => ({
    installationId: instance.installationId,
    instanceId: instance.instanceId,
    installation: instance.slug,
    userId: deps.member.userId,
    kind,
    target,
    where,
  });
  const inArgs = args ? await gate.scan(call("arguments"), args) : undefined;
  if (inArgs?.blocked) {
    const message = guardrailRefusalMessage(inArgs.findings, "arguments");
    recordRefusal(
      deps,
      { route, kind, requested, arguments: inArgs.recorded, guardrailFindings: () => inArgs.findings },
      message,
      "guardrail",
    );
    throw guardrailError(message);
  }
  let answered: readonly GuardrailFinding[] = [];
  let withheld: string | undefined;
  const answer = async <T>(value: T, where: "result" | "resource", withhold: (message: string) => T): Promise<T> => {
    const scan = await gate.scan(call(where), value);
    answered = scan?.findings ?? [];
    withheld = scan?.blocked ? guardrailRefusalMessage(scan.findings, where) : undefined;
    if (!scan) return value;
    return withheld ? withhold(withheld) : (scan.value as T);
  };
  return {
    sent: (inArgs?.value as Record<string, unknown> | undefined) ?? args,
    logged: inArgs?.recorded ?? args,
    findings: () => {
      const all = [...(inArgs?.findings ?? []), ...answered];
      return all.length > 0 ? all : undefined;
    },
    result: (value) =>
      answer(value, "result", (message) => {
        const withheldResult: CallToolResult = { isError: true, content: [{ type: "text", text: message }] };
        return withheldResult as typeof value;
      }),
    contents: (value) =>
      answer(value, "resource", () => {
        const none: ReadResourceResult = { contents: [] };
        return none as typeof value;
      }),
    withheld: () => withheld,
  };
}

/** Resource contents a guardrail withheld: the JSON-RPC error the client gets instead (-32030). */
export function withheldError(message: string): Error {
  return guardrailError(message);
}
