"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { isReconnectable, type InstanceStatus } from "@switchboard/core/status";
import { ErrorText } from "~/components/console/error-text";
import { errorMessage } from "~/lib/errors";
import { useTRPC } from "~/trpc/react";
import { actionOutcome, inFlight, type ActionOutcome, type ActionVerb, type Tracking } from "./action-outcome";

/**
 * Reconnect (online / offline / error) or, for admins, Restart (permanently_failed), then what came of it in one
 * sentence: started, under way, back online, or still failing and why (the raw error behind a disclosure). The
 * outcome is read from the instance itself, refreshed by the live updates. `tracking` follows an action started
 * elsewhere (a bulk reconnect); `onStart` / `onOutcome` tell a list which of its items are in flight.
 * A member sees who can bring a stopped server back instead of a button the server would refuse.
 */
export function InstanceActions({
  teamId,
  instanceId,
  status,
  label,
  canRestart,
  tracking,
  onStart,
  onOutcome,
}: {
  teamId: string;
  instanceId: string;
  status: InstanceStatus;
  label: string;
  canRestart: boolean;
  tracking?: Tracking;
  /** Called as the action is sent; may answer how to undo what it did if the server refuses the action. */
  onStart?: (instanceId: string) => (() => void) | void;
  onOutcome?: (instanceId: string, outcome: ActionOutcome) => void;
}) {
  const trpc = useTRPC();
  const [own, setOwn] = useState<Tracking | null>(null);
  const started = (verb: ActionVerb) => (baseline: Tracking["baseline"]) => setOwn({ verb, baseline });
  const reconnect = useMutation(trpc.ops.reconnect.mutationOptions({ onSuccess: started("reconnect") }));
  const restart = useMutation(trpc.ops.restart.mutationOptions({ onSuccess: started("restart") }));
  const active = own ?? tracking ?? null;
  const seen = useQuery(trpc.instance.get.queryOptions({ teamId, instanceId }, { enabled: active !== null }));
  // Once the attempt has ended, the retry loop's own later attempts do not turn "Still failing" back into
  // "under way": the sentence answers what the person's action did, until it recovers or fails anew.
  const ended = useRef<{ for: Tracking; outcome: ActionOutcome } | null>(null);
  const now = active ? actionOutcome(active, seen.data) : null;
  if (now && now.phase !== "started" && now.phase !== "working") ended.current = { for: active!, outcome: now };
  const outcome = now && now.phase === "working" && ended.current?.for === active ? ended.current.outcome : now;
  const busy = reconnect.isPending || restart.isPending || inFlight(outcome);
  const phase = outcome?.phase;
  useEffect(() => {
    if (outcome && onOutcome) onOutcome(instanceId, outcome);
    // Once per phase: the outcome object is new at every render.
  }, [phase, instanceId]);
  const error = reconnect.error ?? restart.error;
  const act = (verb: ActionVerb) => {
    setOwn(null);
    const undo = onStart?.(instanceId);
    const options = { onError: () => undo?.() };
    if (verb === "reconnect") reconnect.mutate({ teamId, instanceId }, options);
    else restart.mutate({ teamId, instanceId }, options);
  };
  return (
    <div className="instance-actions">
      <div className="row">
        {isReconnectable(status) && (
          <button
            type="button"
            className="secondary small"
            aria-label={`Reconnect ${label}`}
            title={status === "online" ? "Close the connection and open it again" : "Try to connect now"}
            disabled={busy}
            onClick={() => act("reconnect")}
          >
            {busy && active?.verb !== "restart" ? "Reconnecting…" : "Reconnect"}
          </button>
        )}
        {status === "permanently_failed" && !canRestart && (
          <span className="muted small">An admin must restart it.</span>
        )}
        {status === "permanently_failed" && canRestart && (
          <button
            type="button"
            className="small"
            aria-label={`Restart ${label}`}
            disabled={busy}
            onClick={() => act("restart")}
          >
            {busy ? "Restarting…" : "Restart"}
          </button>
        )}
      </div>
      {outcome && (
        <div
          className={`small action-feedback ${outcome.phase === "failing" ? "error" : outcome.phase === "online" ? "ok-text" : "muted"}`}
          role="status"
          data-testid="action-feedback"
          data-phase={outcome.phase}
        >
          {outcome.text}
          {outcome.phase === "failing" && outcome.message && (
            <>
              {" "}
              <ErrorText message={outcome.message} detail={outcome.detail} />
            </>
          )}
        </div>
      )}
      {error && (
        <span className="error small" role="alert">
          {errorMessage(error)}
        </span>
      )}
    </div>
  );
}
