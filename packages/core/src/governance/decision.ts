/**
 * The decision a call gets when its team wrote no policies: the governance settings as they are (what is turned
 * off never reaches the route, so everything routed is permitted), except tools an admin marked as needing
 * approval. The Cedar default policies say the same; this is the rule without an evaluator.
 */

/** The version of the built-in default policy set; an approval granted under it binds to it. */
export const DEFAULT_POLICY_VERSION = "default";

/** JSON-RPC error codes of a refused call, next to quotas' -32029 and guardrails' -32030. */
export const POLICY_FORBIDDEN_CODE = -32031;
export const APPROVAL_REQUIRED_CODE = -32032;

export const APPROVAL_MARKED_REASON = "An admin marked this tool as needing approval.";

export function defaultPolicyDecision(call: {
  kind: "tool" | "resource" | "prompt";
  target: string;
  governance?: { tools: Readonly<Record<string, { requiresApproval?: boolean }>> };
}): { effect: "permit" | "approval"; reason?: string; policyVersion: string } {
  if (call.kind === "tool" && call.governance?.tools[call.target]?.requiresApproval === true) {
    return { effect: "approval", reason: APPROVAL_MARKED_REASON, policyVersion: DEFAULT_POLICY_VERSION };
  }
  return { effect: "permit", policyVersion: DEFAULT_POLICY_VERSION };
}
