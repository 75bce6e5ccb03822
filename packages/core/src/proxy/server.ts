import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  ResultSchema,
  RootsListChangedNotificationSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
  type LoggingLevel,
  type RequestId,
  type Result,
  type Implementation,
  type ServerCapabilities,
  type ServerRequest,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import {
  DEFAULT_REQUEST_TIMEOUT_MS,
  LazyJsonSchemaValidator,
  type InputRetry,
  type ServerToClientRequest,
} from "../upstream";
import {
  approvalInputKey,
  APPROVAL_REQUIRED_CODE,
  defaultPolicyDecision,
  isApprovalInputKey,
  isReadOnlyTool,
  POLICY_FORBIDDEN_CODE,
  QUOTA_EXCEEDED_CODE,
  quotaRefusalData,
  quotaRefusalMessage,
} from "../governance";
import { hiddenUiResources, namespaceResultResources, uiResourceUris } from "../names";
import { isRepeatableTool } from "../policies/retry-safety";
import { callAdmission, needsMemberAction } from "../status";
import { blockedMessage } from "./blocked";
import { CallRejectedError, forward, recordRefusal, safeMeasure, type ForwardDeps } from "./forward";
import { governanceRefusal, governInstances } from "./governed";
import { guardCall, withheldError } from "./guarded";
import type { GuardrailGate } from "../guardrails";
import { RecoveryCoordinator } from "./recovery";
import {
  asRelayedError,
  CallDeadline,
  DEFAULT_SERVER_REQUEST_TIMEOUT_MS,
  relayedCall,
  relayLogging,
  requestOptions,
  type DownstreamExtra,
} from "./relay";
import { canAnswer, relayableCapabilities } from "./session-upstreams";
import { ROUTER_TOOL_NAMES, ROUTER_TOOLS, SEARCH_DEFAULT_LIMIT, searchTools } from "./router-mode";
import { buildRouter, type Route, type Router } from "./router";
import type {
  ApprovalGate,
  CallKind,
  CallSink,
  CatalogueSource,
  GatedCall,
  MemberInstance,
  ProxyMember,
  PolicyGate,
  ProxyMode,
  QuotaGate,
  RediscoveryTrigger,
  RetryOverrides,
  StatusSink,
  UpstreamClient,
  UpstreamProvider,
} from "./types";

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
  offers?: { completions?: boolean; resourceSubscribe?: boolean };
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

/** Severity order of MCP log levels (RFC 5424), lowest first. */
const LOG_LEVELS: readonly LoggingLevel[] = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
];

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
  };
}

/** The MCP server a member's client talks to: their online instances' catalogue, routed to live upstreams. */
export function createProxyServer(options: ProxyServerOptions): ProxyServer {
  const mode = options.mode ?? "namespaced";
  const recovery =
    options.recovery ??
    new RecoveryCoordinator({
      status: options.status,
      rediscovery: options.rediscovery,
      onError: options.onRecoveryError,
    });
  const deps: ForwardDeps = {
    member: options.member,
    upstreams: options.upstreams,
    status: options.status,
    recovery,
    calls: options.calls,
    retry: options.retry,
    now: options.now ?? Date.now,
    redactor: options.redactor,
    metrics: options.metrics,
  };
  const offers = options.offers ?? {};
  const server = new Server(options.serverInfo ?? { name: "switchboard", version: "0.0.0" }, {
    capabilities: proxyCapabilities(offers),
    jsonSchemaValidator: new LazyJsonSchemaValidator(),
  });
  // Each call in progress, by instance: where a server-to-client request of that instance's upstream goes, and
  // the attempt's deadline, held while such a request waits for the client.
  const inflight = new Map<string, InflightCall[]>();
  const tracked = async <T>(
    instanceId: string,
    client: UpstreamClient,
    extra: DownstreamExtra,
    run: (deadline: CallDeadline) => Promise<T>,
  ): Promise<T> => {
    const timeoutMs = options.callTimeoutMs ?? client.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    tapLogs(instanceId, client);
    const call: InflightCall = { extra, deadline: new CallDeadline(timeoutMs) };
    const calls = inflight.get(instanceId) ?? [];
    calls.push(call);
    inflight.set(instanceId, calls);
    try {
      return await run(call.deadline);
    } finally {
      call.deadline.dispose();
      calls.splice(calls.indexOf(call), 1);
      if (calls.length === 0) inflight.delete(instanceId);
    }
  };
  // logging/setLevel is this session's own: upstream messages below it are not relayed to this client, and the
  // level is never sent upstream, where a connection may be shared with the member's other sessions.
  let logLevel = 0;
  const logged = (level: LoggingLevel) => LOG_LEVELS.indexOf(level) >= logLevel;
  const relayLog = <T>(client: UpstreamClient, extra: DownstreamExtra, run: () => Promise<T>) =>
    relayLogging(client, extra, run, logged);
  // An instance's log messages that arrive while none of this session's calls to it runs (those relay them as
  // related to the call), on the connection the session last used for it; untapped on dispose.
  const logTaps = new Map<string, { client: UpstreamClient; off: () => void }>();
  const tapLogs = (instanceId: string, client: UpstreamClient) => {
    const tap = logTaps.get(instanceId);
    if (!options.logsOutsideCalls || tap?.client === client || !client.onLoggingMessage) return;
    tap?.off();
    const off = client.onLoggingMessage((params) => {
      if (inflight.get(instanceId)?.length || !logged(params.level) || !server.transport) return;
      void server.notification({ method: "notifications/message", params }).catch(() => {});
    });
    logTaps.set(instanceId, { client, off });
  };
  // The routing index is rebuilt only when the catalogue source hands back a different snapshot (apps cache it),
  // not on every call: for a member with a thousand tools that index is most of a call's work.
  let built: { instances: readonly MemberInstance[]; router: Router } | undefined;
  const router = async (): Promise<Router> => {
    let instances: readonly MemberInstance[];
    try {
      instances = await options.catalogue.list(options.member);
    } catch (error) {
      // A store's error text (SQL, driver detail) is not for the client.
      options.onCatalogueError?.(error);
      throw new McpError(ErrorCode.InternalError, "Your servers could not be loaded right now; try again in a moment.");
    }
    if (built?.instances !== instances) built = { instances, router: buildRouter(mode, governInstances(instances)) };
    return built.router;
  };

  // Tools a server lists only to clients that declared sampling, elicitation or roots are listed to, and
  // callable by, sessions whose client declared one of them only (MemberInstance.clientCapabilityTools).
  const plainClient = () => relayableCapabilities(server.getClientCapabilities()) === undefined;
  const needsCapabilities = (route: Route | undefined) =>
    route?.instance.clientCapabilityTools?.includes(route.target) === true;
  const plainLists = new WeakMap<Router, Tool[]>();
  const visibleTools = (r: Router): Tool[] => {
    if (!plainClient()) return r.tools();
    let tools = plainLists.get(r);
    if (!tools) {
      const all = r.tools();
      const any = built?.instances.some((i) => (i.clientCapabilityTools?.length ?? 0) > 0) ?? true;
      tools = any ? all.filter((t) => !needsCapabilities(r.resolveTool(t.name))) : all;
      plainLists.set(r, tools);
    }
    return tools;
  };

  // A 2026-07-28 client's call to a 2026 upstream: its input_required comes back, the client's retry goes up.
  const passing = options.passInputRequired;
  // Answers to our own approval elicitation (see admit) are ours: the upstream never asked them.
  const upstreamRetry = ((): InputRetry | undefined => {
    const retry = passing?.retry;
    if (!retry) return undefined;
    const answers = Object.entries(retry.inputResponses ?? {}).filter(([key]) => !isApprovalInputKey(key));
    if (answers.length === 0 && retry.requestState === undefined) return undefined;
    return { ...retry, inputResponses: Object.fromEntries(answers) };
  })();
  const upstreamCall = <P>(relayed: { params: P; options: RequestOptions }) =>
    passing
      ? {
          params: { ...relayed.params, ...upstreamRetry },
          options: { ...relayed.options, passInputRequired: true, passTasks: passing.tasks !== undefined },
        }
      : relayed;
  /** A task an upstream of `instanceId` answered a call with, under the id its client polls it by. */
  const passedTask = <T>(instanceId: string, result: T): T => {
    const task = result as { resultType?: unknown; taskId?: unknown };
    if (!passing?.tasks || task.resultType !== "task" || typeof task.taskId !== "string") return result;
    return { ...result, taskId: passing.tasks.wrap(instanceId, task.taskId) };
  };

  /**
   * A 2026 upstream's `input_required` passed to the client asks only what the client declared (a server that
   * asks anyway is refused here, whatever it was offered): the refusal's message, or undefined when it may pass.
   */
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
  /** For resources/read and prompts/get: the result, or the refusal of what the client cannot answer. */
  const answerable = <T>(result: T): T => {
    const refused = unanswerableInput(result);
    if (refused) throw new McpError(ErrorCode.InvalidRequest, refused);
    return result;
  };

  const routerMode = options.toolMode === "router";
  /** The items the team's policies let this member list (a hidden one is as missing as one that never was). */
  const listable = async <T extends { name?: string; uri?: string }>(
    kind: CallKind,
    items: T[],
    resolve: (item: T) => Route | undefined,
  ): Promise<T[]> => {
    if (!options.policy?.hides || items.length === 0) return items;
    const routes = items.map(resolve);
    const hidden = await options.policy.hides(
      routes.map((route) => ({
        kind,
        installationId: route?.instance.installationId ?? "",
        installationSlug: route?.instance.slug,
        target: route?.target ?? "",
        annotations: kind === "tool" && route ? toolOf(route)?.annotations : undefined,
      })),
    );
    return hidden ? items.filter((_, i) => hidden[i] !== true) : items;
  };
  /**
   * Client-facing URIs of UI resources (MCP Apps) whose linking tools the team's policies all hide from this member
   * (core `hiddenUiResources`); with `uri`, asked only when a tool links to that one.
   */
  const policyHiddenUi = async (r: Router, uri?: string): Promise<ReadonlySet<string>> => {
    if (!options.policy?.hides) return new Set();
    const all = r.tools();
    if (!all.some((t) => uiResourceUris(t._meta).some((u) => uri === undefined || u === uri))) return new Set();
    return hiddenUiResources(all, await listable("tool", all, (t) => r.resolveTool(t.name)));
  };
  const listedTools = async (r: Router) => listable("tool", visibleTools(r), (t) => r.resolveTool(t.name));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: routerMode ? ROUTER_TOOLS : await listedTools(await router()),
  }));
  /** The resources this member may list: the views of tools a policy hides, and what policies hide, left out. */
  const listedResources = async (r: Router) => {
    const hiddenUi = await policyHiddenUi(r);
    const resources = r.resources().filter((x) => !hiddenUi.has(x.uri));
    return listable("resource", resources, (x) => r.resolveResource(x.uri));
  };
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: await listedResources(await router()),
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: (await router()).resourceTemplates(),
  }));
  server.setRequestHandler(ListPromptsRequestSchema, async () => {
    const r = await router();
    return { prompts: await listable("prompt", r.prompts(), (x) => r.resolvePrompt(x.name)) };
  });

  /** Throws -32042 with the page that unblocks the instance, when there is one and the client can open it. */
  const sendToFixPage = async (instance: MemberInstance, message: string): Promise<void> => {
    if (!needsMemberAction(instance.status)) return;
    if (server.getClientCapabilities()?.elicitation?.url === undefined || !options.fixUrl) return;
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
  };

  const toolOf = (route: Route): Tool | undefined =>
    route.instance.tools.find((t) => (route.instance.upstreamToolNames?.get(t.name) ?? t.name) === route.target);

  /**
   * The team's policy decides the call (before any quota is taken): permitted calls go on; forbidden ones are
   * refused with the policy's reason; held ones go on only with an approval of exactly this call, and otherwise
   * send the client to the approval page (URL elicitation) or say where to ask.
   */
  const admit = async (
    route: Route,
    kind: CallKind,
    requested: string,
    args: Record<string, unknown> | undefined,
    /** The arguments as the request log keeps them (guardrail matches masked). */
    logged: unknown = args,
  ): Promise<Record<string, unknown> | undefined> => {
    const { instance, target } = route;
    const call: GatedCall = {
      kind,
      installationId: instance.installationId,
      installationSlug: instance.slug,
      instanceId: instance.instanceId,
      target,
      requested,
      arguments: args,
      annotations: kind === "tool" ? toolOf(route)?.annotations : undefined,
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
    const admission = await options.approval!.admit(call, decision);
    if (admission.admitted) return;
    if (
      admission.state === "pending" &&
      admission.url &&
      server.getClientCapabilities()?.elicitation?.url !== undefined
    ) {
      recordRefusal(deps, { route, kind, requested, arguments: logged }, admission.message, "approval");
      const elicitation = { mode: "url", elicitationId: randomUUID(), url: admission.url, message: admission.message };
      // A 2026-07-28 client is asked within the call's result; its retry runs the call (and this check) again.
      if (passing && kind === "tool")
        return {
          resultType: "input_required",
          inputRequests: {
            [approvalInputKey(elicitation.elicitationId)]: { method: "elicitation/create", params: elicitation },
          },
        };
      throw Object.assign(new Error(admission.message), {
        code: ErrorCode.UrlElicitationRequired,
        data: { elicitations: [elicitation] },
      });
    }
    refuse(admission.message, APPROVAL_REQUIRED_CODE, {
      state: admission.state,
      ...(admission.url ? { url: admission.url } : {}),
    });
  };

  /**
   * Counts the call against the member's quotas; past one, a JSON-RPC error (not a tool result: the call never
   * ran) says which limit and when it resets, and the request log records the refusal.
   */
  const takeQuota = async (gate: QuotaGate, route: Route, name: string, logged: unknown): Promise<void> => {
    const { instance, target } = route;
    const tool = toolOf(route);
    const refusal = await gate.take({
      installationId: instance.installationId,
      tool: target,
      readOnly: isReadOnlyTool(tool?.annotations),
    });
    if (!refusal) return;
    const message = quotaRefusalMessage(refusal, name, deps.now());
    recordRefusal(deps, { route, kind: "tool", requested: name, arguments: logged }, message, "quota");
    throw Object.assign(new Error(message), { code: QUOTA_EXCEEDED_CODE, data: quotaRefusalData(refusal) });
  };

  const callTool = async (
    name: string,
    args: Record<string, unknown> | undefined,
    _meta: Record<string, unknown> | undefined,
    extra: DownstreamExtra,
  ): Promise<CallToolResult> => {
    const routes = await router();
    const route = routes.resolveTool(name);
    if (!route) {
      // Governance keeps it out of this session: the client hears of no such tool, the request log of the refusal.
      const refused = built && governanceRefusal(mode, built.instances, name);
      if (refused)
        recordRefusal(
          deps,
          { route: refused.route, kind: "tool", requested: name, arguments: args },
          refused.reason,
          "governance",
        );
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    }
    if (needsCapabilities(route) && plainClient()) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    // Guardrails first: a policy, an approval and a quota see the arguments as they would be sent (redacted where
    // an action says so), and a call they refuse is logged with every match masked.
    const guard = await guardCall(options.guardrails, deps, route, "tool", name, args);
    const held = await admit(route, "tool", name, guard.sent, guard.logged);
    if (held) return held as CallToolResult;
    if (options.quota) await takeQuota(options.quota, route, name, guard.logged);
    // An attempt whose upstream asked the client something reached the upstream: it is not sent again.
    let asked = false;
    try {
      const result = (await forward(deps, {
        route,
        kind: "tool",
        requested: name,
        arguments: guard.logged,
        guardrailFindings: guard.findings,
        signal: extra.signal,
        run: (client) =>
          tracked(route.instance.instanceId, client, extra, async (deadline) => {
            try {
              const relayed = upstreamCall(
                relayedCall({ name: route.target, arguments: guard.sent, _meta }, extra, deadline),
              );
              const options = { ...relayed.options, toolInputSchema: toolOf(route)?.inputSchema };
              const result = await relayLog(client, extra, () => client.callTool(relayed.params, options));
              return guard.result(passedTask(route.instance.instanceId, result));
            } finally {
              asked ||= deadline.asked;
            }
          }),
        isToolError: (result) => result.isError === true,
        mayRetry: () => !asked,
        // Asked only after a failure: the annotations of the tool as the client listed it.
        repeatable: () => isRepeatableTool(routes.tools().find((tool) => tool.name === name)?.annotations),
      })) as CallToolResult;
      const refused = unanswerableInput(result);
      return refused ? { isError: true, content: [{ type: "text", text: refused }] } : withClientUiLinks(route, result);
    } catch (error) {
      // Tool failures go back as a tool result so the model reads the reason and can tell the member.
      if (error instanceof CallRejectedError) {
        if (error.outcome === "blocked") await sendToFixPage(route.instance, error.message);
        return { isError: true, content: [{ type: "text", text: error.message }] };
      }
      throw asRelayedError(error);
    }
  };

  /** A tool result's resource links (MCP Apps links, resource_link items) as this client reads them. */
  const withClientUiLinks = (route: Route, result: CallToolResult): CallToolResult =>
    mode !== "namespaced" ? result : namespaceResultResources(route.instance.slug, result);

  const readResource = async (uri: string, _meta: Record<string, unknown> | undefined, extra: DownstreamExtra) => {
    const r = await router();
    const route = r.resolveResource(uri);
    // The UI of tools a policy hides is as missing as they are.
    if (!route || (await policyHiddenUi(r, uri)).has(uri))
      throw new McpError(ErrorCode.InvalidParams, `Unknown resource: ${uri}`);
    await admit(route, "resource", uri, undefined);
    const guard = await guardCall(options.guardrails, deps, route, "resource", uri, undefined);
    // Content is read from the upstream every time; only the listing is cached.
    const result = await rejectAsMcpError(() =>
      forward(deps, {
        route,
        kind: "resource",
        requested: uri,
        arguments: undefined,
        guardrailFindings: guard.findings,
        signal: extra.signal,
        run: (client) =>
          tracked(route.instance.instanceId, client, extra, (deadline) =>
            relayLog(client, extra, () => {
              // The request's _meta (trace context, vendor keys) goes upstream, as on a tool call.
              const relayed = upstreamCall(relayedCall({ uri: route.target, _meta }, extra, deadline));
              return client.readResource(relayed.params, relayed.options).then(guard.contents);
            }),
          ),
      }),
    );
    const withheld = guard.withheld();
    if (withheld) throw withheldError(withheld);
    return answerable(result);
  };

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args, _meta } = request.params;
    if (!routerMode) return callTool(name, args, _meta, extra);
    return callRouterTool(name, args ?? {}, _meta, extra);
  });

  /** The four meta-tools of router mode; `call_tool` and `read_resource` take the same path as direct calls. */
  const callRouterTool = async (
    name: string,
    args: Record<string, unknown>,
    _meta: Record<string, unknown> | undefined,
    extra: DownstreamExtra,
  ): Promise<CallToolResult> => {
    const text = (value: unknown): CallToolResult => ({
      content: [{ type: "text", text: JSON.stringify(value, null, 2) }],
    });
    switch (name) {
      case ROUTER_TOOL_NAMES.search: {
        if (typeof args.query !== "string")
          throw new McpError(ErrorCode.InvalidParams, "search_tools needs a string `query`");
        const limit = typeof args.limit === "number" ? args.limit : SEARCH_DEFAULT_LIMIT;
        const found = searchTools(await listedTools(await router()), args.query, limit);
        return text({
          tools: found.map((t) => ({ name: t.name, description: t.description ?? "", inputSchema: t.inputSchema })),
        });
      }
      case ROUTER_TOOL_NAMES.call: {
        if (typeof args.name !== "string")
          throw new McpError(ErrorCode.InvalidParams, "call_tool needs the tool's `name`");
        const inner = args.arguments;
        if (inner !== undefined && (typeof inner !== "object" || inner === null || Array.isArray(inner))) {
          throw new McpError(ErrorCode.InvalidParams, "call_tool `arguments` must be an object");
        }
        return callTool(args.name, inner as Record<string, unknown> | undefined, _meta, extra);
      }
      case ROUTER_TOOL_NAMES.listResources: {
        // What resources/list would answer: the same policies and hidden views.
        const r = await router();
        return text({ resources: await listedResources(r), resourceTemplates: r.resourceTemplates() });
      }
      case ROUTER_TOOL_NAMES.readResource: {
        if (typeof args.uri !== "string") throw new McpError(ErrorCode.InvalidParams, "read_resource needs a `uri`");
        try {
          const result = await readResource(args.uri, _meta, extra);
          // The upstream needs the client's input first (2026-07-28): that is the answer, until the retry.
          if ((result as { resultType?: unknown }).resultType === "input_required") return result as never;
          return { content: result.contents.map((resource) => ({ type: "resource" as const, resource })) };
        } catch (error) {
          if (error instanceof McpError) return { isError: true, content: [{ type: "text", text: error.message }] };
          throw error;
        }
      }
      default:
        throw new McpError(
          ErrorCode.InvalidParams,
          `Unknown tool: ${name}. In router mode, use search_tools and call_tool.`,
        );
    }
  };

  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) =>
    readResource(request.params.uri, request.params._meta, extra),
  );

  server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
    const { name, arguments: args, _meta } = request.params;
    const route = (await router()).resolvePrompt(name);
    if (!route) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    await admit(route, "prompt", name, args);
    return rejectAsMcpError(() =>
      forward(deps, {
        route,
        kind: "prompt",
        requested: name,
        arguments: args,
        signal: extra.signal,
        run: (client) =>
          tracked(route.instance.instanceId, client, extra, (deadline) =>
            relayLog(client, extra, () => {
              const relayed = upstreamCall(
                relayedCall({ name: route.target, arguments: args, _meta }, extra, deadline),
              );
              return client.getPrompt(relayed.params, relayed.options);
            }),
          ),
      }),
    ).then(answerable);
  });

  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    logLevel = Math.max(0, LOG_LEVELS.indexOf(request.params.level));
    return {};
  });

  /** A request that is not a call (completion, subscription) goes straight to the instance, if its status admits it. */
  const direct = async (route: Route) => {
    const admission = callAdmission(route.instance.status);
    if (!admission.allowed) throw new McpError(ErrorCode.InvalidRequest, blockedMessage(route.instance, admission));
    const client = await options.upstreams.get(route.instance.instanceId);
    tapLogs(route.instance.instanceId, client);
    return client;
  };

  if (offers.completions) {
    server.setRequestHandler(CompleteRequestSchema, async (request, extra) => {
      const { ref } = request.params;
      const r = await router();
      const route =
        ref.type === "ref/prompt"
          ? r.resolvePrompt(ref.name)
          : (r.resolveTemplate(ref.uri) ?? r.resolveResource(ref.uri));
      if (!route)
        throw new McpError(
          ErrorCode.InvalidParams,
          ref.type === "ref/prompt" ? `Unknown prompt: ${ref.name}` : `Unknown resource: ${ref.uri}`,
        );
      const client = await direct(route);
      if (!client.complete)
        throw new McpError(ErrorCode.MethodNotFound, `${route.instance.name} does not offer completions`);
      const upstreamRef = ref.type === "ref/prompt" ? { ...ref, name: route.target } : { ...ref, uri: route.target };
      try {
        return await client.complete(
          { ...request.params, ref: upstreamRef },
          requestOptions(options.callTimeoutMs, extra),
        );
      } catch (error) {
        throw asRelayedError(error);
      }
    });
  }

  // The session's resource subscriptions, by instance and upstream URI, with the URI the client knows and the
  // connection they are made on (none while it could not be renewed).
  interface Subscription {
    instanceId: string;
    target: string;
    uri: string;
    on?: { client: UpstreamClient; off: () => void };
  }
  const subscriptions = new Map<string, Subscription>();
  /** Subscribes on the instance's current connection; updates come back under the client's URI, to this session only. */
  const attach = async (subscription: Subscription, client: UpstreamClient, callOptions?: RequestOptions) => {
    if (!client.subscribeResource || !client.unsubscribeResource || !client.onResourceUpdated) {
      throw new McpError(ErrorCode.MethodNotFound, "This server does not offer resource subscriptions");
    }
    await client.subscribeResource(subscription.target, callOptions);
    const off = client.onResourceUpdated((updated) => {
      if (updated === subscription.target) void server.sendResourceUpdated({ uri: subscription.uri }).catch(() => {});
    });
    subscription.on = { client, off };
  };
  const detach = async (subscription: Subscription, unsubscribe: boolean) => {
    const on = subscription.on;
    subscription.on = undefined;
    if (!on) return;
    on.off();
    if (unsubscribe) await on.client.unsubscribeResource?.(subscription.target);
  };
  if (offers.resourceSubscribe) {
    server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
      const uri = request.params.uri;
      const route = (await router()).resolveResource(uri);
      if (!route) throw new McpError(ErrorCode.InvalidParams, `Unknown resource: ${uri}`);
      const key = `${route.instance.instanceId}\n${route.target}`;
      if (subscriptions.has(key)) return {};
      const subscription: Subscription = { instanceId: route.instance.instanceId, target: route.target, uri };
      try {
        await attach(subscription, await direct(route), requestOptions(options.callTimeoutMs, extra));
      } catch (error) {
        throw asRelayedError(error);
      }
      subscriptions.set(key, subscription);
      return {};
    });
    server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
      const uri = request.params.uri;
      const route = (await router()).resolveResource(uri);
      if (!route) throw new McpError(ErrorCode.InvalidParams, `Unknown resource: ${uri}`);
      const key = `${route.instance.instanceId}\n${route.target}`;
      const subscription = subscriptions.get(key);
      subscriptions.delete(key);
      try {
        if (subscription) await detach(subscription, true);
      } catch (error) {
        throw asRelayedError(error);
      }
      return {};
    });
  }

  /** A server-to-client request sent to this session's client, on the stream of `call` when there is one. */
  const relay = async (
    call: DownstreamExtra | undefined,
    request: ServerToClientRequest,
    signal: AbortSignal,
  ): Promise<Result> => {
    const mode = request.method === "elicitation/create" ? (request.params as { mode?: string }).mode : undefined;
    if (!canAnswer(server.getClientCapabilities(), request) || !server.transport) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `The client using this connection cannot answer ${request.method}${mode === "url" ? " (URL mode)" : ""}`,
      );
    }
    const transport = server.transport as { canReach?: (related?: RequestId) => boolean };
    if (transport.canReach?.(call?.requestId) === false) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `The client cannot be reached for ${request.method} right now (no open stream)`,
      );
    }
    return server.request(request as ServerRequest, ResultSchema, {
      signal: call ? AbortSignal.any([signal, call.signal]) : signal,
      timeout: options.serverRequestTimeoutMs ?? DEFAULT_SERVER_REQUEST_TIMEOUT_MS,
      ...(call?.requestId !== undefined ? { relatedRequestId: call.requestId } : {}),
    });
  };

  const proxy: ProxyServer = {
    server,
    recovery,
    async listedTool(name) {
      return (routerMode ? ROUTER_TOOLS : (await router()).tools()).find((t) => t.name === name);
    },
    async relayServerRequest(instanceId, request, { signal }) {
      const calls = inflight.get(instanceId);
      const call = calls?.[calls.length - 1];
      // The call's clock stops while the client answers: a person may take a while to fill in a form.
      const release = call?.deadline.hold();
      let outcome: "answered" | "failed" = "failed";
      try {
        const answer = await relay(call?.extra, request, signal);
        outcome = "answered";
        return answer;
      } finally {
        release?.();
        safeMeasure(() => options.metrics?.serverRequestRelayed({ method: request.method, outcome }));
      }
    },
    async renewSubscriptions(instanceId) {
      const mine = [...subscriptions.values()].filter((s) => s.instanceId === instanceId);
      if (mine.length === 0) return;
      let client: UpstreamClient;
      try {
        client = await options.upstreams.get(instanceId);
      } catch {
        return; // Still down: the next renewal (its recovery) tries again.
      }
      for (const subscription of mine) {
        if (subscription.on?.client === client) continue;
        await detach(subscription, false);
        await attach(subscription, client).catch(() => {});
      }
    },
    async dispose() {
      for (const tap of logTaps.values()) tap.off();
      logTaps.clear();
      const all = [...subscriptions.values()];
      subscriptions.clear();
      await Promise.all(all.map((s) => detach(s, true).catch(() => {})));
    },
    async notifyCatalogueChanged(kinds = ["tools", "resources", "prompts"]) {
      if (!server.transport) return;
      const send: Record<CatalogueKind, () => Promise<void>> = {
        tools: () => server.sendToolListChanged(),
        resources: () => server.sendResourceListChanged(),
        prompts: () => server.sendPromptListChanged(),
      };
      // A client that went away is not our caller's problem.
      await Promise.all(kinds.map((kind) => send[kind]().catch(() => {})));
    },
  };
  server.setNotificationHandler(RootsListChangedNotificationSchema, () => proxy.onRootsListChanged?.());
  return proxy;
}

interface InflightCall {
  extra: DownstreamExtra;
  deadline: CallDeadline;
}

async function rejectAsMcpError<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof CallRejectedError) {
      throw new McpError(
        error.outcome === "blocked" ? ErrorCode.InvalidRequest : ErrorCode.InternalError,
        error.message,
      );
    }
    throw asRelayedError(error);
  }
}
