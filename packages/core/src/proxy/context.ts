import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ErrorCode, McpError, type LoggingLevel, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_REQUEST_TIMEOUT_MS, LazyJsonSchemaValidator } from "../upstream";
import { callAdmission } from "../status";
import { blockedMessage } from "./blocked";
import { proxyCapabilities } from "./capabilities";
import type { ForwardDeps } from "./forward";
import { governInstances } from "./governed";
import { inputPassing, type InputPassing } from "./passing";
import { RecoveryCoordinator } from "./recovery";
import { CallDeadline, relayLogging, type DownstreamExtra } from "./relay";
import { buildRouter, type Route, type Router } from "./router";
import type { ProxyServerOptions } from "./server-options";
import { relayableCapabilities } from "./session-upstreams";
import type { MemberInstance, ProxyMode, UpstreamClient } from "./types";
import { ProxySdkServer } from "./sdk-server";

/**
 * Routers by catalogue snapshot and mode, shared by every proxy of the process: a router is a pure function of
 * the snapshot (apps hand back the same array until the member's catalogue changes), so a 2026-07-28 request,
 * whose proxy is built per request, reuses the routing index and the lists (with their JSON) of the requests
 * before it, as a session does.
 */
const routers = new WeakMap<readonly MemberInstance[], Map<string, Router>>();

function routerFor(mode: ProxyMode, instances: readonly MemberInstance[]): Router {
  const key = mode === "namespaced" ? mode : `single:${mode.single}`;
  let byMode = routers.get(instances);
  if (!byMode) routers.set(instances, (byMode = new Map()));
  let router = byMode.get(key);
  if (!router) byMode.set(key, (router = buildRouter(mode, governInstances(instances))));
  return router;
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

/** A call in progress on an instance: where that upstream's requests to its client go, and the attempt's deadline. */
export interface InflightCall {
  extra: DownstreamExtra;
  deadline: CallDeadline;
}

/**
 * What the handlers of one member's proxy server share (handlers/*.ts): the options, the SDK server, the routing
 * index, the calls in progress and the session's log level. One per server, built by `createProxyContext`.
 */
export interface ProxyContext {
  readonly options: ProxyServerOptions;
  readonly mode: ProxyMode;
  /** `toolMode: "router"`: the four meta-tools instead of the catalogue's tools. */
  readonly routerMode: boolean;
  readonly server: Server;
  readonly recovery: RecoveryCoordinator;
  readonly deps: ForwardDeps;
  readonly passing: InputPassing;
  /** Each call in progress, by instance (see `tracked`). */
  readonly inflight: Map<string, InflightCall[]>;
  /** The member's routing index; rebuilt only when the catalogue source hands back a different snapshot. */
  router(): Promise<Router>;
  /** The instances the routing index was last built from (none before the first `router()`). */
  instances(): readonly MemberInstance[] | undefined;
  /** Runs an upstream request as a call in progress on the instance, under the call's deadline. */
  tracked<T>(
    instanceId: string,
    client: UpstreamClient,
    extra: DownstreamExtra,
    run: (deadline: CallDeadline) => Promise<T>,
  ): Promise<T>;
  /** Relays the upstream's log messages about the call, at this session's level. */
  relayLog<T>(client: UpstreamClient, extra: DownstreamExtra, run: () => Promise<T>): Promise<T>;
  /** Listens for the instance's log messages outside calls on `client` (with `logsOutsideCalls`). */
  tapLogs(instanceId: string, client: UpstreamClient): void;
  /** `logging/setLevel` of this session. */
  setLogLevel(level: LoggingLevel): void;
  /** Stops listening for log messages outside calls. */
  untapLogs(): void;
  /** The route's tool as its upstream declared it. */
  toolOf(route: Route): Tool | undefined;
  /** The client declared none of sampling, elicitation and roots. */
  plainClient(): boolean;
  /** The route's tool is listed only to clients that declared sampling, elicitation or roots. */
  needsCapabilities(route: Route | undefined): boolean;
  /** A request that is not a call (completion, subscription) goes straight to the instance, if its status admits it. */
  direct(route: Route): Promise<UpstreamClient>;
}

export function createProxyContext(options: ProxyServerOptions): ProxyContext {
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
  const server = new ProxySdkServer(options.serverInfo ?? { name: "switchboard", version: "0.0.0" }, {
    capabilities: proxyCapabilities(options.offers),
    jsonSchemaValidator: new LazyJsonSchemaValidator(),
  });
  // Each call in progress, by instance: where a server-to-client request of that instance's upstream goes, and
  // the attempt's deadline, held while such a request waits for the client.
  const inflight = new Map<string, InflightCall[]>();
  // logging/setLevel is this session's own: upstream messages below it are not relayed to this client, and the
  // level is never sent upstream, where a connection may be shared with the member's other sessions.
  let logLevel = 0;
  const logged = (level: LoggingLevel) => LOG_LEVELS.indexOf(level) >= logLevel;
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
  // The member's shared connections to the session's instances, opened by this session or another of the
  // member's: each is tapped as it comes, so a session that never used an instance still hears its messages.
  const watched = new Map<string, () => void>();
  const watchLogs = (instances: readonly MemberInstance[]) => {
    const watch = options.upstreams.watch?.bind(options.upstreams);
    if (!options.logsOutsideCalls || !watch) return;
    const now = new Set(instances.map((i) => i.instanceId));
    for (const [instanceId, unwatch] of watched)
      if (!now.has(instanceId)) {
        unwatch();
        watched.delete(instanceId);
      }
    for (const instanceId of now)
      if (!watched.has(instanceId))
        watched.set(
          instanceId,
          watch(instanceId, (client) => tapLogs(instanceId, client)),
        );
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
    if (built?.instances !== instances) {
      built = { instances, router: routerFor(mode, instances) };
      watchLogs(instances);
    }
    return built.router;
  };

  return {
    options,
    mode,
    routerMode: options.toolMode === "router",
    server,
    recovery,
    deps,
    passing: inputPassing(options.passInputRequired, server),
    inflight,
    router,
    instances: () => built?.instances,
    async tracked(instanceId, client, extra, run) {
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
    },
    relayLog: (client, extra, run) => relayLogging(client, extra, run, logged),
    tapLogs,
    setLogLevel(level) {
      logLevel = Math.max(0, LOG_LEVELS.indexOf(level));
    },
    untapLogs() {
      for (const unwatch of watched.values()) unwatch();
      watched.clear();
      for (const tap of logTaps.values()) tap.off();
      logTaps.clear();
    },
    toolOf: (route) =>
      route.instance.tools.find((t) => (route.instance.upstreamToolNames?.get(t.name) ?? t.name) === route.target),
    // Tools a server lists only to clients that declared sampling, elicitation or roots are listed to, and
    // callable by, sessions whose client declared one of them only (MemberInstance.clientCapabilityTools).
    plainClient: () => relayableCapabilities(server.getClientCapabilities()) === undefined,
    needsCapabilities: (route) => route?.instance.clientCapabilityTools?.includes(route.target) === true,
    async direct(route) {
      const admission = callAdmission(route.instance.status);
      if (!admission.allowed) throw new McpError(ErrorCode.InvalidRequest, blockedMessage(route.instance, admission));
      const client = await options.upstreams.get(route.instance.instanceId);
      tapLogs(route.instance.instanceId, client);
      return client;
    },
  };
}
