import { STATUS_LABELS, isInstanceStatus } from "@switchboard/core/status";

const label = (s: unknown) => (isInstanceStatus(s) ? STATUS_LABELS[s] : "—");
const secs = (ms: unknown) => `${Math.round(Number(ms ?? 0) / 100) / 10} s`;

/** One line for a timeline entry, from the stored event type and payload. */
export function describeEvent(
  type: string,
  p: Record<string, unknown>,
  by?: string | null,
): { title: string; detail?: string; raw?: string; tone: "ok" | "warning" | "danger" | "progress" | "" } {
  switch (type) {
    case "status_changed":
      return {
        title: p.from ? `${label(p.from)} → ${label(p.to)}` : `Created: ${label(p.to)}`,
        detail: p.message as string | undefined,
        raw: p.detail as string | undefined,
        tone: "",
      };
    case "server_disconnected":
      return {
        title: p.wasIntentional ? "Disconnected on request" : "Disconnected",
        detail: p.reason as string | undefined,
        tone: p.wasIntentional ? "" : "warning",
      };
    case "server_reconnecting":
      return {
        title: `Reconnecting: attempt ${p.attempt}, next try in ${secs(p.nextRetryMs)}`,
        detail: p.lastError as string | undefined,
        tone: "progress",
      };
    case "server_reconnected":
      return { title: `Reconnected after ${p.attemptsTaken} attempt${p.attemptsTaken === 1 ? "" : "s"}`, tone: "ok" };
    case "server_health_degraded":
      return {
        title: `Health degraded (${p.consecutiveFailures} failed checks)`,
        detail: p.lastError as string | undefined,
        tone: "warning",
      };
    case "server_health_restored":
      return { title: `Health restored after ${p.failuresBeforeRestore} failed checks`, tone: "ok" };
    case "server_crashed":
      return {
        title: `Crashed (exit ${p.exitCode ?? p.signal ?? "?"}, ${p.crashesInWindow} in 5 min)`,
        detail: p.stderrTail ? "The process wrote this to its error output before it exited." : undefined,
        raw: p.stderrTail as string | undefined,
        tone: "danger",
      };
    case "server_permanently_failed":
      return { title: "Stopped after repeated crashes", detail: p.message as string | undefined, tone: "danger" };
    case "server_restarted":
      return {
        title: p.reason === "manual" && by ? `Restarted by ${by}` : `Restarted (${String(p.reason).replace("_", " ")})`,
        tone: "progress",
      };
    case "reconnect_requested":
      return {
        title: `Reconnect requested by ${by ?? "the system"}`,
        detail: `It was ${label(p.from).toLowerCase()}.`,
        tone: "progress",
      };
    case "discovery_completed":
      return {
        title: `Discovered ${p.toolCount} tools, ${p.resourceCount} resources, ${p.promptCount} prompts (${Number(p.totalTokens ?? 0).toLocaleString()} tokens)`,
        tone: "ok",
      };
    case "discovery_failed":
      return {
        title: "Discovery failed",
        detail:
          p.error !== undefined
            ? `${p.error}${p.keptCachedTools ? " (kept the cached tools)" : ""}`
            : p.keptCachedTools
              ? "Kept the cached tools."
              : undefined,
        tone: "danger",
      };
    case "tools_changed": {
      const n = (k: string) => (Array.isArray(p[k]) ? (p[k] as unknown[]).length : 0);
      return { title: `Tools changed: +${n("added")} −${n("removed")} ~${n("changed")}`, tone: "" };
    }
    case "catalogue_changed":
      return { title: "Catalogue changed", detail: p.reason as string | undefined, tone: "" };
    case "tool_review_pending": {
      const tools = Array.isArray(p.tools) ? (p.tools as unknown[]).map(String) : [];
      return {
        title: `${tools.length} tool definition${tools.length === 1 ? "" : "s"} changed, awaiting review`,
        detail: tools.join(", "),
        tone: "warning",
      };
    }
    case "tool_review_decided":
      return {
        title: `${p.decision === "approved" ? "Approved" : "Rejected"} the new definition of ${String(p.tool)}`,
        detail: `by ${String(p.by)}`,
        tone: p.decision === "approved" ? "ok" : "warning",
      };
    default:
      return { title: type.replaceAll("_", " "), tone: "" };
  }
}
