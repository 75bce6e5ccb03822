import { createHash } from "node:crypto";
import * as cedar from "@cedar-policy/cedar-wasm/nodejs";
import type { CedarValueJson, DetailedError, EntityJson } from "@cedar-policy/cedar-wasm/nodejs";
import { DEFAULT_POLICY_VERSION, defaultPolicyDecision, APPROVAL_MARKED_REASON } from "../decision";
import { POLICY_SCHEMA, type PolicyAction } from "./schema";

/**
 * Team policies in Cedar: checking a policy set against the schema (problems name their line), compiling it
 * once, and deciding a call. `decideCall` is the one decision the route and the console's "what would happen"
 * panel both use.
 *
 * Cedar itself has only permit and forbid. Two annotations carry the rest:
 * - `@reason("...")`: the sentence a forbidden caller (or the approver of a held call) reads;
 * - `@effect("approval")` on a permit: a call this policy permits is held until an approver allows it.
 * A call is forbidden when any forbid applies or no permit does; held when an applying permit says
 * `@effect("approval")` (or an admin marked the tool as needing approval); otherwise permitted. A policy may name
 * itself with `@id("...")`; otherwise it is `policy1`, `policy2`, ... in the order written.
 */

export interface PolicyProblem {
  /** 1-based line and column in the policy text; 0 when Cedar gave no position. */
  line: number;
  column: number;
  message: string;
  policyId?: string;
}

interface PolicyMeta {
  reason?: string;
  approval: boolean;
}

export interface CompiledPolicies {
  /** The version decisions are made under (an approval binds to it). */
  version: string;
  /** SHA-256 of the text. */
  hash: string;
  policies: Record<string, string>;
  meta: Record<string, PolicyMeta>;
  /** Id of the set preparsed in this process's Cedar (once per text). */
  prepared: string;
}

export type PolicyCheck = { ok: true; compiled: CompiledPolicies } | { ok: false; problems: PolicyProblem[] };

const SCHEMA_NAME = "switchboard";
let schemaPrepared = false;
const preparedSets = new Set<string>();

function prepareSchema() {
  if (schemaPrepared) return;
  const answer = cedar.preparseSchema(SCHEMA_NAME, POLICY_SCHEMA);
  if (answer.type !== "success") throw new Error(`The policy schema does not parse: ${answer.errors[0]?.message}`);
  schemaPrepared = true;
}

export function policyTextHash(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, offset));
  const lines = before.split("\n");
  return { line: lines.length, column: (lines.at(-1)?.length ?? 0) + 1 };
}

function problem(text: string, error: DetailedError, policyId?: string): PolicyProblem {
  const at = error.sourceLocations?.[0];
  const where = at ? position(text, at.start) : { line: 0, column: 0 };
  const help = error.help ? ` (${error.help})` : "";
  const label = at?.label ? `: ${at.label}` : "";
  // Cedar names its own positional ids ("policy2"); the line says where, so the message need not.
  const message = error.message.replace(/^for policy `policy\d+`, /, "");
  return { ...where, message: `${message}${label}${help}`, ...(policyId ? { policyId } : {}) };
}

const MAX_REASON_LENGTH = 500;

/**
 * Checks a team's policy text against the schema; on success returns it compiled under `version`. Problems are
 * sentences with the line they are on, in the order of the text.
 */
export function checkPolicies(text: string, version: string): PolicyCheck {
  const parsed = cedar.checkParsePolicySet({ staticPolicies: text });
  if (parsed.type !== "success") return { ok: false, problems: parsed.errors.map((e) => problem(text, e)) };
  const validated = cedar.validate({ schema: POLICY_SCHEMA, policies: { staticPolicies: text } });
  if (validated.type !== "success") return { ok: false, problems: validated.errors.map((e) => problem(text, e)) };
  const problems = validated.validationErrors.map((e) => problem(text, e.error));
  const parts = cedar.policySetTextToParts(text);
  if (parts.type !== "success") return { ok: false, problems: parts.errors.map((e) => problem(text, e)) };
  if (parts.policy_templates.length > 0)
    problems.push({
      line: 0,
      column: 0,
      message: "Policy templates (with ?principal or ?resource) are not supported.",
    });
  const policies: Record<string, string> = {};
  const meta: Record<string, PolicyMeta> = {};
  let from = 0;
  parts.policies.forEach((policy, index) => {
    const json = cedar.policyToJson(policy);
    const annotations = json.type === "success" ? (json.json.annotations ?? {}) : {};
    const offset = text.indexOf(policy.split("\n")[0] ?? policy, from);
    if (offset >= 0) from = offset + 1;
    const at = position(text, Math.max(0, offset));
    const id = annotations.id ?? `policy${index + 1}`;
    if (policies[id] !== undefined)
      problems.push({ ...at, message: `Two policies are named “${id}”; each @id must be unique.`, policyId: id });
    const effect = annotations.effect;
    if (effect !== undefined && effect !== "approval")
      problems.push({ ...at, message: `@effect may only be "approval" (found “${effect}”).`, policyId: id });
    if (effect === "approval" && json.type === "success" && json.json.effect !== "permit")
      problems.push({ ...at, message: `@effect("approval") belongs on a permit policy.`, policyId: id });
    if ((annotations.reason ?? "").length > MAX_REASON_LENGTH)
      problems.push({ ...at, message: `@reason is longer than ${MAX_REASON_LENGTH} characters.`, policyId: id });
    policies[id] = policy;
    meta[id] = { ...(annotations.reason ? { reason: annotations.reason } : {}), approval: effect === "approval" };
  });
  if (problems.length > 0) return { ok: false, problems: problems.sort((a, b) => a.line - b.line) };
  const hash = policyTextHash(text);
  return { ok: true, compiled: { version, hash, policies, meta, prepared: `set:${hash}` } };
}

/** Who asks, as the gateway knows them when it builds the member's session. */
export interface PolicyPrincipal {
  userId: string;
  email: string;
  role: string;
  groups: readonly string[];
}

/** The item a request is about: a tool, resource or prompt of an installation. */
export interface PolicyItem {
  kind: "tool" | "resource" | "prompt";
  /** Upstream name of the tool or prompt, or the upstream URI of the resource. */
  target: string;
  installationId: string;
  installationSlug: string;
  annotations?: {
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}

export interface PolicyRequestContext {
  /** "token" (a personal access token) or "oauth" (an OAuth grant). */
  token: "token" | "oauth";
  /** The client's name as it introduced itself ("unknown" when it did not). */
  client: string;
  /** The MCP protocol revision the client speaks. */
  revision: string;
  time: Date;
}

export interface PolicyRequest extends PolicyRequestContext {
  teamId: string;
  principal: PolicyPrincipal;
  action: PolicyAction;
  item: PolicyItem;
  arguments?: Record<string, unknown>;
}

export interface PolicyOutcome {
  effect: "permit" | "forbid" | "approval";
  reason?: string;
  policyId?: string;
  policyVersion: string;
}

const NS = "Switchboard";
const uid = (type: string, id: string) => ({ type: `${NS}::${type}`, id });
const ITEM_TYPE = { tool: "Tool", resource: "Resource", prompt: "Prompt" } as const;

function argumentTags(args: Record<string, unknown> | undefined) {
  const text: Record<string, CedarValueJson> = {};
  const numbers: Record<string, CedarValueJson> = {};
  for (const [name, value] of Object.entries(args ?? {})) {
    if (value === undefined) continue;
    text[name] = typeof value === "string" ? value : JSON.stringify(value);
    if (typeof value === "number" && Number.isSafeInteger(value)) numbers[name] = value;
  }
  return { text, numbers };
}

function entities(request: PolicyRequest): EntityJson[] {
  const { principal, item, teamId } = request;
  const member: EntityJson = {
    uid: uid("Member", principal.userId),
    attrs: { role: principal.role, groups: [...principal.groups], email: principal.email },
    parents: [uid("Role", principal.role), ...principal.groups.map((g) => uid("Group", g))],
  };
  const installation: EntityJson = {
    uid: uid("Installation", item.installationSlug),
    attrs: { slug: item.installationSlug },
    parents: [uid("Team", teamId)],
  };
  const hints = item.annotations ?? {};
  const readOnly = hints.readOnlyHint === true;
  const attrs: Record<string, CedarValueJson> =
    item.kind === "tool"
      ? {
          name: item.target,
          readOnlyHint: readOnly,
          // The MCP specification's defaults: a tool that does not say otherwise may destroy and reach the world.
          destructiveHint: readOnly ? false : hints.destructiveHint !== false,
          idempotentHint: hints.idempotentHint === true,
          openWorldHint: hints.openWorldHint !== false,
        }
      : item.kind === "resource"
        ? { uri: item.target }
        : { name: item.target };
  const resource: EntityJson = {
    uid: uid(ITEM_TYPE[item.kind], `${item.installationSlug}/${item.target}`),
    attrs,
    parents: [installation.uid],
  };
  const tags = argumentTags(request.arguments);
  return [
    member,
    installation,
    resource,
    { uid: uid("Arguments", "call"), attrs: {}, parents: [], tags: tags.text },
    { uid: uid("Numbers", "call"), attrs: {}, parents: [], tags: tags.numbers },
  ];
}

function context(request: PolicyRequest): Record<string, CedarValueJson> {
  const { time } = request;
  return {
    arguments: { __entity: uid("Arguments", "call") },
    numbers: { __entity: uid("Numbers", "call") },
    time: {
      epochSeconds: Math.floor(time.getTime() / 1000),
      hourUtc: time.getUTCHours(),
      weekdayUtc: time.getUTCDay(),
    },
    client: request.client,
    token: request.token,
    revision: request.revision,
  };
}

export const POLICY_UNAVAILABLE_REASON =
  "The team's policies could not be evaluated for this call, so it was refused; ask a team admin.";
export const POLICY_NO_PERMIT_REASON = "No team policy permits this call.";

/** Evaluates one request against a compiled set. An evaluator failure forbids (fails closed) with a sentence. */
export function evaluatePolicies(compiled: CompiledPolicies, request: PolicyRequest): PolicyOutcome {
  const policyVersion = compiled.version;
  try {
    prepareSchema();
    if (!preparedSets.has(compiled.prepared)) {
      const answer = cedar.preparsePolicySet(compiled.prepared, { staticPolicies: compiled.policies });
      if (answer.type !== "success") return { effect: "forbid", reason: POLICY_UNAVAILABLE_REASON, policyVersion };
      preparedSets.add(compiled.prepared);
    }
    const answer = cedar.statefulIsAuthorized({
      principal: uid("Member", request.principal.userId),
      action: uid("Action", request.action),
      resource: uid(ITEM_TYPE[request.item.kind], `${request.item.installationSlug}/${request.item.target}`),
      context: context(request),
      entities: entities(request),
      preparsedPolicySetId: compiled.prepared,
      preparsedSchemaName: SCHEMA_NAME,
      validateRequest: false,
    });
    if (answer.type !== "success") return { effect: "forbid", reason: POLICY_UNAVAILABLE_REASON, policyVersion };
    const { decision, diagnostics } = answer.response;
    const [first] = diagnostics.reason;
    if (decision === "deny") {
      if (first === undefined) return { effect: "forbid", reason: POLICY_NO_PERMIT_REASON, policyVersion };
      const reason = compiled.meta[first]?.reason ?? `The team policy “${first}” forbids this call.`;
      return { effect: "forbid", reason, policyId: first, policyVersion };
    }
    const held = diagnostics.reason.find((id) => compiled.meta[id]?.approval);
    if (held !== undefined) {
      const reason = compiled.meta[held]?.reason ?? `The team policy “${held}” asks for an approval.`;
      return { effect: "approval", reason, policyId: held, policyVersion };
    }
    return { effect: "permit", ...(first !== undefined ? { policyId: first } : {}), policyVersion };
  } catch {
    return { effect: "forbid", reason: POLICY_UNAVAILABLE_REASON, policyVersion };
  }
}

export interface CallDecision extends PolicyOutcome {
  /** The policies keep the item out of the member's lists: the route answers as for a missing one. */
  hidden?: boolean;
}

const CALL_ACTION = { tool: "CallTool", resource: "ReadResource", prompt: "GetPrompt" } as const;

/**
 * The decision on a tool call, resource read or prompt get: the team's policies (none: the defaults, decided
 * without Cedar), then an admin's "requires approval" mark on the tool, which holds a call the policies permit.
 * An item the policies do not let the member list is hidden. The route and the "what would happen" panel both
 * decide with this function.
 */
export function decideCall(
  compiled: CompiledPolicies | null,
  request: Omit<PolicyRequest, "action">,
  governance?: { tools: Readonly<Record<string, { requiresApproval?: boolean }>> },
): CallDecision {
  const marked = { kind: request.item.kind, target: request.item.target, governance };
  if (!compiled) return defaultPolicyDecision(marked);
  const listed = evaluatePolicies(compiled, { ...request, action: "List" });
  if (listed.effect === "forbid") return { ...listed, hidden: true };
  const outcome = evaluatePolicies(compiled, { ...request, action: CALL_ACTION[request.item.kind] });
  if (outcome.effect !== "permit") return outcome;
  const byMark = defaultPolicyDecision(marked);
  if (byMark.effect === "approval")
    return { effect: "approval", reason: APPROVAL_MARKED_REASON, policyVersion: compiled.version };
  return outcome;
}

/** Whether the policies keep an item out of the member's lists (tools/list, resources/list, prompts/list). */
export function hiddenByPolicies(compiled: CompiledPolicies | null, request: Omit<PolicyRequest, "action">): boolean {
  if (!compiled) return false;
  return evaluatePolicies(compiled, { ...request, action: "List" }).effect === "forbid";
}

export { DEFAULT_POLICY_VERSION };
