import type {
  CallToolRequest,
  CompleteRequest,
  CompleteResult,
  CallToolResult,
  GetPromptRequest,
  GetPromptResult,
  Prompt,
  ReadResourceRequest,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { InstallationGovernance, QuotaRefusal } from "../governance";
import type { GuardrailFinding } from "../guardrails";
import type { ErrorClassification, RetryPolicy } from "../policies";
import type { InstanceStatus } from "../status";
import type {
  CallOptions,
  TaskMethod2025,
  LoggingListener,
  ResourceUpdatedListener,
  TaskMethod,
  TaskStatusListener,
} from "../upstream";

export interface ProxyMember {
  userId: string;
}

/** One of the member's instances with its cached catalogue, as the app stores it. */
export interface MemberInstance {
  instanceId: string;
  installationId: string;
  slug: string;
  /** Display name of the server, used in messages to the member. */
  name: string;
  status: InstanceStatus;
  statusMessage?: string | null;
  /** What the upstream declared at its last discovery; decides what the route offers beyond tools/resources/prompts. */
  capabilities?: {
    completions?: object;
    resources?: { subscribe?: boolean };
    /** 2025-11-25's experimental tasks: which requests may be tasks, and whether tasks are listed. */
    tasks?: { list?: object; requests?: { tools?: { call?: object } } };
  } | null;
  tools: Tool[];
  /**
   * Names of tools the server lists only to clients that declared sampling, elicitation or roots (found at
   * discovery): listed to, and callable by, sessions whose client declared one of them only.
   */
  clientCapabilityTools?: readonly string[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  prompts: Prompt[];
  /** The installation's tool governance (admin settings); absent: everything is exposed as discovered. */
  governance?: InstallationGovernance;
  /** Definition hash per upstream tool name (core governance `toolDefinitionHash`), for pinned installations. */
  toolHashes?: Readonly<Record<string, string>>;
  /** Upstream names of tools the member hid from their own clients. */
  hiddenTools?: readonly string[];
  /** A toolset's selection (upstream names): only these tools of the instance, and none of its resources or prompts. */
  selectedTools?: readonly string[];
  /** Set by governInstances: exposed name to upstream name, for renamed tools. */
  upstreamToolNames?: ReadonlyMap<string, string>;
  /** Set by governInstances: upstream URIs of UI resources (MCP Apps) whose linking tools are all hidden. */
  hiddenResources?: ReadonlySet<string>;
  /** Set by governInstances: tool names outside the catalogue are refused, never forwarded on a guess. */
  governed?: boolean;
}

/** The member's instances; asked on every list and every call, so the app should cache it. */
export interface CatalogueSource {
  list(member: ProxyMember): Promise<MemberInstance[]>;
}

/** The slice of a live upstream connection the proxy uses (UpstreamConnection fits). */
export interface UpstreamClient {
  callTool(params: CallToolRequest["params"], options?: CallOptions): Promise<CallToolResult | Record<string, unknown>>;
  readResource(params: ReadResourceRequest["params"], options?: CallOptions): Promise<ReadResourceResult>;
  getPrompt(params: GetPromptRequest["params"], options?: CallOptions): Promise<GetPromptResult>;
  onLoggingMessage?(listener: LoggingListener): () => void;
  /** `tasks/get|update|cancel` of a task the upstream created (2026-07-28 tasks extension), as it answered. */
  taskRequest?(
    method: TaskMethod,
    params: { taskId: string } & Record<string, unknown>,
    options?: CallOptions,
  ): Promise<Record<string, unknown>>;
  /** `tasks/get|result|list|cancel` of a 2025-11-25 upstream's experimental tasks, as it answered. */
  taskRequest2025?(
    method: TaskMethod2025,
    params: Record<string, unknown>,
    options?: CallOptions,
  ): Promise<Record<string, unknown>>;
  /** A 2025 upstream's `notifications/tasks/status`. */
  onTaskStatus?(listener: TaskStatusListener): () => void;
  complete?(params: CompleteRequest["params"], options?: CallOptions): Promise<CompleteResult>;
  subscribeResource?(uri: string, options?: CallOptions): Promise<void>;
  unsubscribeResource?(uri: string, options?: CallOptions): Promise<void>;
  onResourceUpdated?(listener: ResourceUpdatedListener): () => void;
  /** Its default request timeout (ms): a proxied call's when the proxy is given none. */
  readonly requestTimeoutMs?: number;
}

/** Hands out the live client of an instance (ConnectionPool fits). Called on every attempt. */
export interface UpstreamProvider {
  get(instanceId: string): Promise<UpstreamClient>;
  /**
   * The instance's shared connection now and each one after it, without opening any (ConnectionPool fits): how
   * a session hears log messages outside calls on connections the member's other sessions opened.
   */
  watch?(instanceId: string, listener: (client: UpstreamClient) => void): () => void;
}

/** Where the proxy reports what calls taught it about an instance; the app turns it into status changes. */
export interface StatusSink {
  /** A call to an offline/error instance succeeded: the app moves it to `connecting`. */
  recoveryDetected(instanceId: string): void | Promise<void>;
  /**
   * A call failed after its retries; `classification.status` is the status the instance should take. `startedAt`
   * (ms since the epoch) is when the call started: a failure of a connection the instance has replaced since is
   * stale (policy `callFailureApplies`).
   */
  callFailed(instanceId: string, classification: ErrorClassification, startedAt: number): void | Promise<void>;
}

/**
 * Counts a tools/call against the member's quotas (the app keeps the counts, shared by its processes): null when
 * the call may go, or the limit that refuses it. Asked once per call, before it is forwarded.
 */
export interface QuotaGate {
  take(call: { installationId: string; tool: string; readOnly: boolean }): Promise<QuotaRefusal | null>;
}

/**
 * A call as the policy and approval gates see it: routed to an instance, not yet counted or forwarded. Tools,
 * resources and prompts alike (`kind`); `annotations` are the tool's as discovered.
 */
export interface GatedCall {
  kind: CallKind;
  installationId: string;
  /** The installation's slug (team policies name tools as `{slug}/{tool}`). */
  installationSlug?: string;
  instanceId: string;
  /** Upstream name of the tool or prompt, or the upstream URI of the resource. */
  target: string;
  /** What the client asked for (namespaced in namespaced mode). */
  requested: string;
  arguments: Record<string, unknown> | undefined;
  annotations?: Tool["annotations"];
  /** The installation's tool governance (admin settings), when it has any. */
  governance?: InstallationGovernance;
}

/** permit: the call goes on; forbid: refused with `reason`; approval: held until an approver allows it. */
export type PolicyEffect = "permit" | "forbid" | "approval";

export interface PolicyDecision {
  effect: PolicyEffect;
  /** The sentence the caller (forbid) or the approver (approval) reads. */
  reason?: string;
  /** The policy that decided, for the request log and the approver. */
  policyId?: string;
  /** The team's policy set version the decision was made under; an approval binds to it. */
  policyVersion: string;
  /** With forbid: the policies hide the item from this member, so the route answers as for a missing one. */
  hidden?: boolean;
}

/** An item a list would show the member: the policy gate may hide it (team policies' `List` action). */
export type ListedItem = Pick<GatedCall, "kind" | "installationId" | "installationSlug" | "target" | "annotations">;

/** Decides each call (the app evaluates the team's policies); without one, core `defaultPolicyDecision` applies. */
export interface PolicyGate {
  decide(call: GatedCall): Promise<PolicyDecision>;
  /**
   * Which of the items the policies hide (true at that index); without it, or null, nothing is hidden. The items
   * are asked for only when there are policies to evaluate: a list of 1,000 tools builds none otherwise.
   */
  hides?(items: () => readonly ListedItem[]): Promise<readonly boolean[] | null>;
}

/**
 * Whether a call that needs approval may go now: admitted when an approval of this caller, tool, exact
 * arguments and policy version is granted, unexpired and unused (and it is used up by this call); otherwise the
 * state, the sentence for the caller and the page where it is decided.
 */
export type ApprovalAdmission =
  | { admitted: true; approvalId: string }
  | { admitted: false; state: "pending" | "denied" | "expired"; message: string; url?: string };

export interface ApprovalGate {
  admit(call: GatedCall, decision: PolicyDecision): Promise<ApprovalAdmission>;
}

/** Starts a re-discovery of an instance; on failure the app keeps the cached catalogue. */
export interface RediscoveryTrigger {
  request(instanceId: string): Promise<void>;
}

export type CallKind = "tool" | "resource" | "prompt";
export type CallOutcome = "success" | "tool_error" | "error" | "blocked";

export interface CallRecord {
  userId: string;
  instanceId: string;
  installationId: string;
  kind: CallKind;
  /** Upstream name of the tool or prompt, or the upstream URI of the resource. */
  target: string;
  /** What the client asked for (namespaced in namespaced mode). */
  requested: string;
  arguments: unknown;
  outcome: CallOutcome;
  /** Reason for blocked and error outcomes, or the JSON-RPC error message of a tool_error. */
  message?: string;
  startedAt: string;
  durationMs: number;
  /** Upstream attempts made (0 when blocked). */
  attempts: number;
  /** Bytes of the JSON result returned to the client (0 without a result). */
  resultBytes: number;
  /** Estimated tokens of that JSON result (core `estimateTokens`; 0 without a result). */
  resultTokens: number;
  /** What the guardrails found (never the matched values); absent when nothing was found. */
  guardrailFindings?: readonly GuardrailFinding[];
}

export interface CallSink {
  record(entry: CallRecord): void | Promise<void>;
}

/**
 * Where the proxy reports what it does, for the app's metrics (the gateway implements it with prom-client; core
 * keeps no counters of its own). Labels are installation slugs and methods, never a member. Optional everywhere:
 * without it nothing is measured. One call per event, from one place each.
 */
export interface ProxyMetrics {
  /** A forwarded request ended (once, whatever happened), after `attempts` upstream attempts (0 when blocked). */
  requestEnded(e: {
    installation: string;
    method: string;
    outcome: CallOutcome;
    seconds: number;
    attempts: number;
  }): void;
  /** One upstream attempt failed; `errorClass` is the kind `classifyError` gave it. */
  attemptFailed(e: { installation: string; errorClass: string }): void;
  /** A request an upstream sent its client (sampling, elicitation, roots) was relayed to the member's client. */
  serverRequestRelayed(e: { method: string; outcome: "answered" | "failed" }): void;
  /** A call was refused before it was forwarded (it also ends as `blocked` in `requestEnded`), and by what. */
  callRefused?(e: { installation: string; method: string; cause: RefusalCause }): void;
}

/**
 * What refused a call before it reached the upstream: tool governance (a tool turned off, awaiting review or
 * hidden), a quota, a policy's forbid, a wait for approval, a guardrail's block.
 */
export type RefusalCause = "governance" | "quota" | "policy" | "approval" | "guardrail";

/** The JSON-RPC method a forwarded call of each kind is. */
export const CALL_METHOD: Readonly<Record<CallKind, string>> = {
  tool: "tools/call",
  resource: "resources/read",
  prompt: "prompts/get",
};

/** Namespaced: every online instance, names prefixed by slug. Single: one instance under its own names. */
export type ProxyMode = "namespaced" | { single: string };

export interface RetryOverrides {
  policy?: RetryPolicy;
  sleep?: (ms: number) => Promise<void>;
}
