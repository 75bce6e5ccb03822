import { randomUUID } from "node:crypto";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import {
  approvalInputKey,
  APPROVAL_REQUIRED_CODE,
  defaultPolicyDecision,
  isReadOnlyTool,
  POLICY_FORBIDDEN_CODE,
  QUOTA_EXCEEDED_CODE,
  quotaRefusalData,
  quotaRefusalMessage,
} from "../../governance";
import { needsMemberAction } from "../../status";
import type { ProxyContext } from "../context";
import { recordRefusal } from "../forward";
import type { Route } from "../router";
import type { CallKind, GatedCall, MemberInstance, QuotaGate } from "../types";

/** What stands between a resolved call and its upstream: the team's policies, approvals and quotas. */
export interface Admission {
  /**
   * The team's policy decides the call (before any quota is taken): permitted calls go on (undefined); forbidden
   * ones are refused with the policy's reason; held ones go on only with an approval of exactly this call, and
   * otherwise send the client to the approval page (URL elicitation; for a 2026-07-28 client's tool call, the
   * `input_required` result returned here) or say where to ask.
   */
  admit(
    route: Route,
    kind: CallKind,
    requested: string,
    args: Record<string, unknown> | undefined,
    /** The arguments as the request log keeps them (guardrail matches masked). */
    logged?: unknown,
  ): Promise<Record<string, unknown> | undefined>;
  /**
   * Counts the call against the member's quotas; past one, a JSON-RPC error (not a tool result: the call never
   * ran) says which limit and when it resets, and the request log records the refusal.
   */
  takeQuota(gate: QuotaGate, route: Route, name: string, logged: unknown): Promise<void>;
  /** Throws -32042 with the page that unblocks the instance, when there is one and the client can open it. */
  sendToFixPage(instance: MemberInstance, message: string): Promise<void>;
}

export function admission(ctx: ProxyContext): Admission {
  const { options, server, deps } = ctx;
  const urlElicitation = () => server.getClientCapabilities()?.elicitation?.url !== undefined;
  return {
    async admit(route, kind, requested, args, logged = args) {
      const { instance, target } = route;
      const call: GatedCall = {
        kind,
        installationId: instance.installationId,
        installationSlug: instance.slug,
        instanceId: instance.instanceId,
        target,
        requested,
        arguments: args,
        annotations: kind === "tool" ? ctx.toolOf(route)?.annotations : undefined,
        governance: instance.governance,
      };
      const decision = options.policy ? await options.policy.decide(call) : defaultPolicyDecision(call);
      if (decision.effect === "permit") return;
      // Hidden by a policy: the client hears what it hears of a missing tool, resource or prompt.
      if (decision.effect === "forbid" && decision.hidden)
        throw new McpError(ErrorCode.InvalidParams, `Unknown ${kind}: ${requested}`);
      const cause = decision.effect === "forbid" ? "policy" : "approval";
      const refuse = (message: string, code: number, data?: Record<string, unknown>): never => {
        recordRefusal(deps, { route, kind, requested, arguments: logged }, message, cause);
        throw Object.assign(new Error(message), { code, ...(data ? { data } : {}) });
      };
      if (decision.effect === "forbid")
        refuse(decision.reason ?? "A team policy forbids this call.", POLICY_FORBIDDEN_CODE);
      if (!options.approval)
        refuse("This call needs an approver's approval, which this gateway cannot ask for.", APPROVAL_REQUIRED_CODE);
      const admitted = await options.approval!.admit(call, decision);
      if (admitted.admitted) return;
      if (admitted.state === "pending" && admitted.url && urlElicitation()) {
        recordRefusal(deps, { route, kind, requested, arguments: logged }, admitted.message, "approval");
        const elicitation = { mode: "url", elicitationId: randomUUID(), url: admitted.url, message: admitted.message };
        // A 2026-07-28 client is asked within the call's result; its retry runs the call (and this check) again.
        if (ctx.passing.active && kind === "tool")
          return {
            resultType: "input_required",
            inputRequests: {
              [approvalInputKey(elicitation.elicitationId)]: { method: "elicitation/create", params: elicitation },
            },
          };
        throw Object.assign(new Error(admitted.message), {
          code: ErrorCode.UrlElicitationRequired,
          data: { elicitations: [elicitation] },
        });
      }
      refuse(admitted.message, APPROVAL_REQUIRED_CODE, {
        state: admitted.state,
        ...(admitted.url ? { url: admitted.url } : {}),
      });
    },

    async takeQuota(gate, route, name, logged) {
      const { instance, target } = route;
      const tool = ctx.toolOf(route);
      const refusal = await gate.take({
        installationId: instance.installationId,
        tool: target,
        readOnly: isReadOnlyTool(tool?.annotations),
      });
      if (!refusal) return;
      const message = quotaRefusalMessage(refusal, name, deps.now());
      recordRefusal(deps, { route, kind: "tool", requested: name, arguments: logged }, message, "quota");
      throw Object.assign(new Error(message), { code: QUOTA_EXCEEDED_CODE, data: quotaRefusalData(refusal) });
    },

    async sendToFixPage(instance, message) {
      if (!needsMemberAction(instance.status)) return;
      if (!urlElicitation() || !options.fixUrl) return;
      let url: string | undefined;
      try {
        url = await options.fixUrl(instance);
      } catch {
        return; // The readable message still goes out.
      }
      if (!url) return;
      const elicitation = { mode: "url", elicitationId: randomUUID(), url, message };
      throw Object.assign(new Error(message), {
        code: ErrorCode.UrlElicitationRequired,
        data: { elicitations: [elicitation] },
      });
    },
  };
}
