import { STATUS_LABELS, isInProgress, type InstanceStatus } from "@switchboard/core/status";

export type ActionVerb = "reconnect" | "restart";

/** The instance as the action found it (what ops.reconnect / ops.restart answer, or the list row it came from). */
export interface ActionBaseline {
  status: InstanceStatus;
  statusChangedAt: Date;
}

export interface Tracking {
  verb: ActionVerb;
  baseline: ActionBaseline;
}

/** The instance as the console sees it now. */
export interface SeenInstance {
  status: InstanceStatus;
  statusChangedAt: Date;
  statusMessage: string | null;
  lastError: string | null;
}

export type ActionOutcome =
  | { phase: "started" | "working" | "online"; text: string }
  | { phase: "failing"; text: string; message: string | null; detail: string | null };

/**
 * What a reconnect or restart has done so far, in one sentence: started (nothing changed yet), working (the
 * attempt is under way), back online, or still failing (with the instance's own message, its raw error behind a
 * disclosure). A status change after the baseline is the job's: the status alone cannot tell "still offline" from
 * "offline again after the attempt".
 */
export function actionOutcome(tracking: Tracking, seen: SeenInstance | undefined): ActionOutcome {
  const { verb, baseline } = tracking;
  if (!seen || seen.statusChangedAt.getTime() === baseline.statusChangedAt.getTime()) {
    if (verb === "restart") return { phase: "started", text: "Restart started: the server is starting again." };
    return {
      phase: "started",
      text:
        baseline.status === "online"
          ? "Reconnect started: the connection is closed and opened again."
          : "Reconnect started: trying to connect now.",
    };
  }
  if (isInProgress(seen.status)) return { phase: "working", text: `Attempt under way: ${STATUS_LABELS[seen.status]}…` };
  if (seen.status === "online")
    return {
      phase: "online",
      text: baseline.status === "online" ? "Reconnected: the connection was opened again; online." : "Back online.",
    };
  return {
    phase: "failing",
    text: `Still failing (${STATUS_LABELS[seen.status]}).`,
    message: seen.statusMessage,
    detail: seen.lastError && seen.lastError !== seen.statusMessage ? seen.lastError : null,
  };
}

/** Still waiting for the job to finish: the action's buttons stay busy and the item keeps its place. */
export function inFlight(outcome: ActionOutcome | null): boolean {
  return outcome?.phase === "started" || outcome?.phase === "working";
}
