import {
  createProxyServer,
  offersTaskCalls,
  RecoveryCoordinator,
  relayableCapabilities,
  selectToolset,
  SessionUpstreams,
  type MemberInstance,
  type ProxyServer,
  type ProxyServerOptions,
} from "@switchboard/core/proxy";
import { REVISION_2026 } from "@switchboard/core/revisions";
import { TASKS_EXTENSION } from "@switchboard/core/upstream";
import { getDb } from "@switchboard/db/client";
import { findTeamSlug } from "@switchboard/db/queries/team";
import { findToolset } from "@switchboard/db/queries/toolset";
import { env } from "@switchboard/runtime/env";
import { logger } from "@switchboard/runtime/logger";
import { routeMetrics } from "../metrics";
import { taskOwner, unwrapTaskId, wrapTaskId } from "./signed-state";
import { approvalGate } from "./approval-gate";
import { memberCatalogue } from "./catalogue-cache";
import { memberGuardrails } from "./guardrails";
import { instanceRedactor } from "./secrets";
import type { SessionRecord } from "./session-store";
import { callLogSink, rediscoveryTrigger, statusSink } from "./sinks";
import { teamPolicyGate } from "./team-policies";
import { toolQuotaGate } from "./tool-quota";
import { forgetSecrets, upstreamPool } from "./upstreams";
import { workerJobs } from "./worker-jobs";

/**
 * A member's proxy server and what it is wired to (catalogue, upstream connections, governance gates, status and
 * request log sinks), as both revisions build it: a 2025-11-25 session (./sessions) keeps one for its lifetime, a
 * 2026-07-28 request (./serve-2026) builds one and drops it once answered.
 */

/** How the gateway introduces itself to clients, in a session's initialize answer and every 2026 result. */
export const SERVER_INFO = { name: "switchboard", version: "0.1.0" };

interface ToolsetSelection {
  toolMode: "all" | "router";
  tools: Array<{ installationId: string; toolName: string }>;
}

let coordinator: RecoveryCoordinator | undefined;

function recovery(): RecoveryCoordinator {
  // One coordinator per process: two sessions of a member that both see a recovery start one re-discovery.
  coordinator ??= new RecoveryCoordinator({
    status: statusSink(workerJobs()),
    rediscovery: rediscoveryTrigger(workerJobs()),
    onError: (instanceId, err) => logger.warn({ instanceId, err }, "recovery handling failed"),
  });
  return coordinator;
}

export class SessionScopeError extends Error {
  override name = "SessionScopeError";
  constructor(readonly slug: string) {
    super(`No server “${slug}” is installed for you in this team.`);
  }
}

/** Who a proxy serves: the token's member, the path's scope and the toolset (a session's record, or one request's). */
export type MemberContext = Pick<SessionRecord, "tokenId" | "userId" | "teamId" | "mode" | "scope" | "toolset">;

/** A member's proxy server with its dependencies wired as both revisions serve it. */
export interface MemberProxy {
  proxy: ProxyServer;
  /** What the member's upstreams offer beyond tools, resources and prompts. */
  offers: { completions: boolean; resourceSubscribe: boolean; tasks: boolean };
  /** The instances on the member's path when the proxy was built. */
  instanceIds: ReadonlySet<string>;
  /** The session's own upstream connections, when its client can answer sampling, elicitation or roots. */
  own?: SessionUpstreams;
  /** Forget the toolset read so far (after a catalogue event). */
  forgetToolset(): void;
  /** Closes the proxy's server and drops it with the session's own connections (the member's shared ones stay). */
  close(): Promise<void>;
}

/**
 * The proxy server for a member on a path: catalogue, upstream connections, governance, status and request log
 * sinks. A 2025-11-25 session keeps one for its lifetime; a 2026-07-28 request builds one and drops it once
 * answered (everything it reads comes from the shared caches and stores, nothing from an earlier request).
 */
export async function createMemberProxy(
  record: MemberContext,
  relayable: ReturnType<typeof relayableCapabilities>,
  passInputRequired: ProxyServerOptions["passInputRequired"] | undefined,
  /** The protocol revision the client speaks (a session's negotiated one, or 2026-07-28), for the metrics. */
  revision: string,
  /** The client's name as it introduced itself (team policies' `context.client`). */
  client = "unknown",
): Promise<MemberProxy> {
  const db = getDb();
  const { userId, teamId, scope } = record;
  const loggingByInstallation = new Map<string, boolean>();
  // A toolset session lists only the set's selection; the set is read again after any catalogue event.
  const toolsetId = record.toolset ?? null;
  let toolset: Promise<ToolsetSelection | null> | undefined;
  const loadToolset = () => (toolset ??= findToolset(db, toolsetId!));
  let selected: { rows: unknown; set: ToolsetSelection | null; value: MemberInstance[] } | undefined;
  const list = async (): Promise<MemberInstance[]> => {
    const rows = await memberCatalogue(db, { userId, teamId, installationSlug: scope ?? undefined });
    for (const r of rows) loggingByInstallation.set(r.installationId, r.requestLogging);
    if (!toolsetId) return rows as MemberInstance[];
    const set = await loadToolset();
    // The same snapshot for the same inputs, so the proxy keeps its routing index.
    if (selected?.rows !== rows || selected.set !== set)
      selected = { rows, set, value: selectToolset(rows, set?.tools ?? []) as MemberInstance[] };
    return selected.value;
  };

  let mode: "namespaced" | { single: string } = "namespaced";
  let rows: MemberInstance[] = [];
  try {
    rows = await list();
  } catch (err) {
    // The session still starts; its first list answers with a readable error if the catalogue stays unreadable.
    if (scope) throw err;
    logger.warn({ err, userId, teamId }, "could not read the member's catalogue while starting an MCP session");
  }
  if (scope) {
    const only = rows[0];
    if (!only) throw new SessionScopeError(scope);
    mode = { single: only.instanceId };
  }
  // Completions and resource subscriptions are declared when one of the session's upstreams offers them.
  const offers = {
    completions: rows.some((r) => r.capabilities?.completions !== undefined),
    resourceSubscribe: rows.some((r) => r.capabilities?.resources?.subscribe === true),
    // The 2026-07-28 tasks extension, offered to 2026 clients only (2025 sessions have no such capability).
    tasks: rows.some((r) => hasTasksExtension(r.capabilities)),
    // 2025-11-25's experimental tasks, offered to 2025 sessions only (2026 has the extension instead).
    taskCalls: revision !== REVISION_2026 && rows.some((r) => offersTaskCalls(r)),
  };
  // A 2025 session's tasks go by ids bound to the member, as a 2026 client's do.
  const owner = taskOwner(record);
  const sessionTasks = {
    wrap: (instanceId: string, taskId: string) => wrapTaskId(instanceId, taskId, owner),
    unwrap: (taskId: string) => unwrapTaskId(taskId, owner),
  };
  let proxyRef: ProxyServer | undefined;
  const own = relayable
    ? new SessionUpstreams(upstreamPool(), relayable, (instanceId, request, extra) => {
        if (!proxyRef) return Promise.reject(new Error("session is starting"));
        return proxyRef.relayServerRequest(instanceId, request, extra);
      })
    : undefined;

  const deps = {
    member: { userId },
    catalogue: { list },
    upstreams: own ?? upstreamPool(),
    status: statusSink(workerJobs()),
    rediscovery: rediscoveryTrigger(workerJobs()),
    recovery: recovery(),
    calls: callLogSink({
      teamId,
      tokenId: record.tokenId,
      loggingEnabled: (installationId) => loggingByInstallation.get(installationId) ?? true,
    }),
    quota: toolQuotaGate({ teamId, userId, tokenId: record.tokenId }),
    // Calls to tools that need approval (installation_item_settings.requiresApproval) wait for an approver.
    approval: approvalGate({ teamId, userId }),
    policy: teamPolicyGate({ teamId, userId, tokenId: record.tokenId, client, revision }),
    guardrails: memberGuardrails({ teamId }),
    serverInfo: SERVER_INFO,
    callTimeoutMs: env().MCP_CALL_TIMEOUT_MS,
    serverRequestTimeoutMs: env().MCP_CLIENT_REQUEST_TIMEOUT_MS,
    redactor: instanceRedactor,
    metrics: routeMetrics()?.proxy(revision),
    onRecoveryError: (instanceId: string, err: unknown) =>
      logger.warn({ instanceId, err }, "background re-discovery request failed"),
    onCatalogueError: (err: unknown) => logger.error({ err, userId, teamId }, "could not read the member's catalogue"),
    // The member's own card on "My servers", where they connect the account or fill in their settings.
    fixUrl: async (instance: MemberInstance) => {
      const slug = await findTeamSlug(db, teamId);
      return slug
        ? new URL(
            `/t/${encodeURIComponent(slug)}/my-servers#my-${encodeURIComponent(instance.instanceId)}`,
            env().APP_URL,
          ).href
        : undefined;
    },
  };
  // A toolset has its own tool mode; elsewhere the token's applies.
  const toolMode = toolsetId ? ((await loadToolset().catch(() => null))?.toolMode ?? "all") : record.mode;
  const proxy = createProxyServer({
    ...deps,
    mode,
    offers,
    toolMode: toolMode === "router" ? "router" : "all",
    passInputRequired,
    sessionTasks: revision !== REVISION_2026 ? sessionTasks : undefined,
    // A 2025-11-25 session's standalone stream carries upstream log messages sent outside a call.
    logsOutsideCalls: revision !== REVISION_2026,
  });
  proxyRef = proxy;
  proxy.onRootsListChanged = () => own?.rootsChanged();
  const instanceIds = new Set(rows.map((r) => r.instanceId));
  const close = async () => {
    await proxy.server.close().catch(() => undefined);
    await proxy.dispose();
    await own?.closeAll();
  };
  return { proxy, offers, instanceIds, own, forgetToolset: () => (toolset = undefined), close };
}

/**
 * Whether capabilities declare the tasks extension: an upstream's stored ones (its `server/discover` answer), or
 * a 2026 request's client capabilities.
 */
export function hasTasksExtension(capabilities: unknown): boolean {
  const extensions = (capabilities as { extensions?: unknown } | null | undefined)?.extensions;
  return typeof extensions === "object" && extensions !== null && TASKS_EXTENSION in extensions;
}

/**
 * After an upstream restarted (a stale connection event): its connections are dropped, the member's shared one
 * and a session's own, and its secrets are read again on the next connection. Settles once both are dropped.
 */
export function evictStaleConnection(instanceId: string, own?: SessionUpstreams): Promise<unknown> {
  const evicted = Promise.all([upstreamPool().evict(instanceId), own?.evict(instanceId)]);
  forgetSecrets(instanceId);
  return evicted;
}
