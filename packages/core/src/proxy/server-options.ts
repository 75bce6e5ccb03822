import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Implementation, Result, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { InputRetry, ServerToClientRequest } from "../upstream";
import type { GuardrailGate } from "../guardrails";
import type { ForwardDeps } from "./forward";
import type { RecoveryCoordinator } from "./recovery";
import type {
  ApprovalGate,
  CallSink,
  CatalogueSource,
  MemberInstance,
  ProxyMember,
  PolicyGate,
  ProxyMode,
  QuotaGate,
  RediscoveryTrigger,
  RetryOverrides,
  StatusSink,
  UpstreamProvider,
} from "./types";

/* What a member's proxy server is built from and what it offers its app (server.ts builds it). */

export type CatalogueKind = "tools" | "resources" | "prompts";

export interface ProxyServerOptions {
  member: ProxyMember;
  mode?: ProxyMode;
  /** `all`: every tool of every online instance. `router`: four meta-tools to search and call them (router-mode.ts). */
  toolMode?: "all" | "router";
  catalogue: CatalogueSource;
  upstreams: UpstreamProvider;
  status: StatusSink;
  rediscovery: RediscoveryTrigger;
  /** Share one coordinator across a process's proxy servers; one is made per server otherwise. */
  recovery?: RecoveryCoordinator;
  calls: CallSink;
  retry?: RetryOverrides;
  /**
   * Per-attempt timeout of forwarded requests (ms); the upstream connection's default applies when unset. It is held while a request the upstream sent
   * for the call (sampling, elicitation, roots) waits for the client, and starts again in full once answered.
   */
  callTimeoutMs?: number;
  serverInfo?: Implementation;
  now?: () => number;
  onRecoveryError?: (instanceId: string, error: unknown) => void;
  /** The member's catalogue could not be read (the client gets a generic message; the detail goes here). */
  onCatalogueError?: (error: unknown) => void;
  /** An instance's secrets, redacted from the failure messages the proxy composes (see ForwardDeps). */
  redactor?: ForwardDeps["redactor"];
  /** Counters and latencies for the app's metrics (see ProxyMetrics); nothing is measured without it. */
  metrics?: ForwardDeps["metrics"];
  /**
   * What the member's upstreams offer beyond tools, resources and prompts; declared to the client only when one
   * of them does (the app reads it from their stored capabilities when it builds the session).
   */
  offers?: { completions?: boolean; resourceSubscribe?: boolean; taskCalls?: boolean };
  /**
   * Relay the log messages an upstream sends outside a call as notifications related to no request (a 2025-11-25
   * session's standalone stream), at the client's `logging/setLevel`. Without it they are dropped: 2026-07-28 has
   * no stream for them (`subscriptions/listen` carries list changes and resource updates only).
   */
  logsOutsideCalls?: boolean;
  /**
   * The console page where the member fixes an instance that needs them (`requires_reauth`: connect the account;
   * `awaiting_user_config`: fill in their settings). A call to such an instance from a client that supports
   * URL-mode elicitation is answered with -32042 (URL elicitation required) pointing there.
   */
  fixUrl?: (instance: MemberInstance) => Promise<string | undefined> | string | undefined;
  /** Quotas on tool calls (governance `quotaCounters`); without it no call is counted. */
  quota?: QuotaGate;
  /** Decides each tool call, resource read and prompt get; without it, core `defaultPolicyDecision`. */
  policy?: PolicyGate;
  /** Admits calls a decision holds for approval; without it such calls are refused. */
  approval?: ApprovalGate;
  /**
   * Scans tool arguments, tool results and resource contents for credentials and personal data (core
   * guardrails): flag, redact or block per the installation's settings; without it nothing is scanned.
   */
  guardrails?: GuardrailGate;
  /** How long a relayed server-to-client request (sampling, elicitation, roots) waits for the client (ms). */
  serverRequestTimeoutMs?: number;
  /**
   * The client speaks 2026-07-28 and answers `input_required` itself (a server built for one such request): a
   * 2026 upstream's `input_required` result of tools/call, prompts/get or resources/read is the call's result,
   * as it came, and `retry` (the client's `inputResponses`, the upstream's `requestState`) goes with the call
   * when it continues one. A 2025 upstream is unaffected: what it asks still goes through `relayServerRequest`.
   */
  passInputRequired?: {
    retry?: InputRetry;
    /**
     * The client declares the tasks extension: a tool call declares it to the upstream too, and a task the
     * upstream answers with (`resultType: "task"`) comes back with the id `wrap` gives it, which must say which
     * instance owns the task (`tasks/get|update|cancel` are routed by it).
     */
    tasks?: { wrap(instanceId: string, taskId: string): string };
  };
  /**
   * The client speaks 2025-11-25, whose experimental tasks pass through (see `handlers/tasks.ts`): a task the
   * upstream starts comes back with the id `wrap` gives it, and `unwrap` says which instance owns a task of ours
   * and its upstream id (undefined: not ours, or not this member's). The capability is declared with
   * `offers.taskCalls`.
   */
  sessionTasks?: {
    wrap(instanceId: string, taskId: string): string;
    unwrap(taskId: string): { instanceId: string; taskId: string } | undefined;
  };
}

export interface ProxyServer {
  /** Connect it to the downstream transport (`server.connect(transport)`). */
  server: Server;
  recovery: RecoveryCoordinator;
  /**
   * The tool a client calls by `name` as the member's catalogue lists it (renamed or namespaced, its input schema
   * as the upstream declared it), e.g. to check a 2026-07-28 call's `Mcp-Param-*` headers; none when unknown.
   */
  listedTool(name: string): Promise<Tool | undefined>;
  /**
   * A task of the instance's upstream as the client may see it (2026-07-28 `tasks/get`, `notifications/tasks`):
   * its inline `result` through the guardrails and with resource links named as this client reads them, as the
   * tool's result would have been.
   */
  shownTask(instanceId: string, task: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Tell the connected client that the member's catalogue changed, e.g. after a discovery or a status change. */
  notifyCatalogueChanged(kinds?: readonly CatalogueKind[]): Promise<void>;
  /**
   * A request an upstream of `instanceId` sent its client (sampling, elicitation, roots), relayed to this
   * session's client: on the response stream of the session's latest call in progress on that instance, or on
   * the session's own stream when none is. Rejects with a JSON-RPC error when the client cannot answer it.
   */
  relayServerRequest(
    instanceId: string,
    request: ServerToClientRequest,
    extra: { signal: AbortSignal },
  ): Promise<Result>;
  /** Called when the client tells us its roots changed. */
  onRootsListChanged?: () => void;
  /**
   * The instance's connection was replaced (evicted after a restart, recovered): subscriptions made on the old
   * one are made again on the current one. Safe to call any time; a failure is retried at the next call.
   */
  renewSubscriptions(instanceId: string): Promise<void>;
  /** Ends the session's resource subscriptions upstream. */
  dispose(): Promise<void>;
}
