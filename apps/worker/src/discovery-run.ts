import { MissingConfigError } from "@switchboard/core/config";
import { CommandNotAllowedError } from "@switchboard/core/deployment";
import { discover, markClientCapabilityTools, type DiscoveryResult } from "@switchboard/core/discovery";
import { classifyError, type ErrorClassification } from "@switchboard/core/policies";
import { replaceCatalogue } from "@switchboard/db/queries/catalogue";
import { recordDiscoveredTools } from "@switchboard/db/queries/governance";
import { getInstanceState, RECONNECT_RESET } from "@switchboard/db/queries/instance-lifecycle";
import { PermanentlyFailedError } from "@switchboard/core/stdio";
import { DISCOVERY_STEPS, isRetrying } from "@switchboard/core/status";
import type { JobContext, WorkerDeps } from "./deps";
import { isDatabaseUnavailable } from "@switchboard/db/errors";
import { markPermanentlyFailed, type PermanentFailureDeps } from "./permanent-failure";

/** What listing and syncing a catalogue use (discovery and the online refresh alike). */
export type CatalogueDeps = Pick<WorkerDeps, "db" | "clock" | "connections" | "recorder">;
export type DiscoveryDeps = CatalogueDeps & PermanentFailureDeps & Pick<WorkerDeps, "jobs" | "listings">;

const SEQUENCE = DISCOVERY_STEPS;

export type DiscoveryOutcome =
  | { kind: "online"; result: DiscoveryResult }
  | { kind: "failed"; classification: ErrorClassification; retry: boolean }
  /** Someone else moved the instance meanwhile (removed, config changed, member cleared a field): stop quietly. */
  | { kind: "aborted"; reason: string };

/**
 * Walks one instance to online: (provisioning ->) command_received -> connecting -> discovering_tools ->
 * syncing_tools -> online, each step written with its time and event. The catalogue is replaced only after
 * discovery succeeded. On failure the classified status (offline / error / requires_reauth) is written with
 * the message and the cached catalogue is kept; the caller decides how to retry.
 */
export async function connectAndDiscover(
  deps: DiscoveryDeps,
  ctx: Pick<JobContext, "logger">,
  instanceId: string,
  opts: { freshConnection: boolean },
): Promise<DiscoveryOutcome> {
  const { recorder, connections } = deps;
  const state = await getInstanceState(deps.db, instanceId);
  if (!state) return { kind: "aborted", reason: "instance not found" };

  // A worker killed mid-discovery leaves the instance in a middle step; resume from there, never go back.
  let current = state.status;
  const step = async (to: (typeof SEQUENCE)[number]) => {
    const at = SEQUENCE.indexOf(current as (typeof SEQUENCE)[number]);
    if (at >= SEQUENCE.indexOf(to)) return true;
    const r = await recorder.transition(instanceId, to);
    if (r.outcome === "changed" || r.outcome === "unchanged") current = to;
    return r.outcome === "changed" || r.outcome === "unchanged";
  };

  if (state.status === "provisioning" && !(await step("command_received")))
    return { kind: "aborted", reason: "status moved" };
  if (!(await step("connecting"))) return { kind: "aborted", reason: `cannot connect from ${state.status}` };

  // What the connection says changed until the listing starts is in the listing (see PendingListings).
  const pending = deps.listings.open(instanceId);
  try {
    if (opts.freshConnection) await connections.evict(instanceId);
    await connections.get(instanceId);
    if (!(await step("discovering_tools"))) return { kind: "aborted", reason: "status moved" };
    // Listed as a client that declared sampling, elicitation and roots would see it, then compared with what a
    // client that declared none sees (see InstanceConnections.forDiscovery).
    const result = await listCatalogue(deps, state, pending.close);
    if (!(await step("syncing_tools"))) return { kind: "aborted", reason: "status moved" };
    const synced = await syncCatalogue(deps, state, result);
    // Everything that comes with online is in place before the status says so: readers that see online
    // also see the events and the health schedule.
    await recorder.event(state, "discovery_completed", {
      toolCount: result.tools.length,
      resourceCount: result.resources.length,
      resourceTemplateCount: result.resourceTemplates.length,
      promptCount: result.prompts.length,
      totalTokens: result.tokens.total,
      durationMs: Math.max(0, result.durationMs),
    });
    await recordCatalogueChanges(deps, state, synced);
    await deps.jobs.upsertHealth(instanceId);
    const online = await recorder.transition(instanceId, "online", {
      data: { ...RECONNECT_RESET, lastError: null, healthConsecutiveFailures: 0, healthDegraded: false },
    });
    if (online.outcome !== "changed" && online.outcome !== "unchanged") {
      await deps.jobs.removeHealth(instanceId);
      return { kind: "aborted", reason: "status moved" };
    }
    ctx.logger.info({ tools: result.tools.length, durationMs: result.durationMs }, "instance online");
    return { kind: "online", result };
  } catch (error) {
    // PostgreSQL away (restarting): not the upstream's fault. The job fails and BullMQ retries it; the retry
    // resumes from the step the instance is in.
    if (isDatabaseUnavailable(error)) throw error;
    if (error instanceof PermanentlyFailedError) {
      // The supervisor gave up on the process (its crash job may still be on its way): stop here, no retry.
      await markPermanentlyFailed(deps, state, Math.max(1, connections.stdioState(instanceId).crashesInWindow));
      return { kind: "aborted", reason: "permanently failed" };
    }
    // Neither a missing team value nor a refused command goes away by retrying; a config change restarts it.
    const missing = error instanceof MissingConfigError || error instanceof CommandNotAllowedError;
    const classification: ErrorClassification = missing
      ? { status: "error", retryable: false, kind: "unknown", message: error.message }
      : classifyError(error);
    ctx.logger.warn({ err: error, status: classification.status, kind: classification.kind }, "discovery failed");
    await deps.jobs.removeHealth(instanceId);
    const failed = await recorder.transition(instanceId, classification.status, {
      message: classification.message,
      data: { lastError: classification.message },
    });
    if (failed.outcome === "missing") return { kind: "aborted", reason: "instance removed" };
    await recorder.event(state, "discovery_failed", {
      error: classification.message,
      keptCachedTools: state.discoveredAt !== null,
    });
    // A missing team value will not appear by retrying; the config change that adds it restarts the instance.
    // Neither will a URL the egress rules refuse, or an argument value that would become an option: a template,
    // settings or operator change comes with its own restart.
    const refused = classification.kind === "egress_refused" || classification.kind === "invalid_config";
    const retry = !missing && !refused && isRetrying(classification.status);
    return { kind: "failed", classification, retry };
  } finally {
    pending.close();
  }
}

type InstanceState = NonNullable<Awaited<ReturnType<typeof getInstanceState>>>;

/**
 * Lists tools, resources, templates and prompts as a client that declared sampling, elicitation and roots would
 * see them, then compares with what a client that declared none sees (see InstanceConnections.forDiscovery).
 */
function listCatalogue(
  deps: Pick<WorkerDeps, "connections" | "clock">,
  state: InstanceState,
  listing?: () => void,
): Promise<DiscoveryResult> {
  return deps.connections.forDiscovery(state.id, async (full, plain) => {
    listing?.();
    return markClientCapabilityTools(await discover(full, { slug: state.slug, now: deps.clock }), plain);
  });
}

/**
 * Replaces the stored catalogue with a listed one and applies tool governance: new tools arrive on or off by
 * the installation's setting; on a pinned installation a new or changed definition is held back from members
 * until an admin reviews it. Discovery and the online refresh both write through here.
 */
async function syncCatalogue(deps: Pick<WorkerDeps, "db">, state: InstanceState, result: DiscoveryResult) {
  const diff = await replaceCatalogue(deps.db, state.id, result);
  const governed = await recordDiscoveredTools(deps.db, state.installationId, result.tools);
  return { diff, governed };
}

/** The timeline's part of a sync: which tools changed (not on a first discovery), which wait for review. */
async function recordCatalogueChanges(
  deps: Pick<WorkerDeps, "recorder">,
  state: InstanceState,
  { diff, governed }: Awaited<ReturnType<typeof syncCatalogue>>,
): Promise<void> {
  if (diff.added.length + diff.removed.length + diff.changed.length > 0 && state.discoveredAt !== null) {
    await deps.recorder.event(state, "tools_changed", diff);
  }
  if (governed.awaitingReview.length > 0)
    await deps.recorder.event(state, "tool_review_pending", { tools: governed.awaitingReview });
}

export type RefreshOutcome =
  | { kind: "refreshed"; tools: number; added: number; removed: number; changed: number }
  | { kind: "failed"; message: string }
  | { kind: "skipped"; reason: string };

/**
 * An online instance's upstream said a list changed: list everything again on the instance's connection and
 * sync it like a discovery does (governance included), without leaving online, so clients never lose the
 * instance's tools meanwhile. Ends with catalogue_changed (a row and the live event the route turns into
 * list_changed for the member's sessions), unless a tools notice found the tools as they were. A failure leaves the instance and its cached catalogue as they are:
 * it is logged and recorded, and the status is left to the proxy's calls and the health probe.
 */
export async function refreshCatalogue(
  deps: CatalogueDeps,
  ctx: Pick<JobContext, "logger">,
  instanceId: string,
  kind: string,
): Promise<RefreshOutcome> {
  const state = await getInstanceState(deps.db, instanceId);
  if (!state) return { kind: "skipped", reason: "instance not found" };
  // Any other status: a discovery is on its way or the instance is not serving; either lists afresh when online.
  if (state.status !== "online") return { kind: "skipped", reason: state.status };
  try {
    const result = await listCatalogue(deps, state);
    const now = await getInstanceState(deps.db, instanceId);
    if (now?.status !== "online") return { kind: "skipped", reason: now?.status ?? "instance not found" };
    const synced = await syncCatalogue(deps, state, result);
    await recordCatalogueChanges(deps, state, synced);
    const { added, removed, changed } = synced.diff;
    // A tools notice whose list came back the same (servers announce their tools as they start, say) changes
    // nothing a member sees: no timeline line, no list_changed to their clients.
    const same = kind === "tools" && added.length + removed.length + changed.length === 0;
    if (!same) await deps.recorder.event(state, "catalogue_changed", { reason: `The server's ${kind} list changed` });
    ctx.logger.info({ tools: result.tools.length, kind, unchanged: same }, "catalogue refreshed");
    return {
      kind: "refreshed",
      tools: result.tools.length,
      added: added.length,
      removed: removed.length,
      changed: changed.length,
    };
  } catch (error) {
    if (isDatabaseUnavailable(error)) throw error;
    const { message } = classifyError(error);
    ctx.logger.warn({ err: error, kind }, "catalogue refresh failed");
    await deps.recorder.event(state, "discovery_failed", { error: message, keptCachedTools: true });
    return { kind: "failed", message };
  }
}
