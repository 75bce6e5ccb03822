"use client";

import { useMutation } from "@tanstack/react-query";
import type { InstanceStatus } from "@switchboard/core/status";
import { errorMessage } from "~/lib/errors";
import { useTRPC } from "~/trpc/react";

const RECONNECTABLE: ReadonlySet<InstanceStatus> = new Set(["online", "offline", "error"]);

/** Reconnect (online / offline / error) or Restart (permanently_failed); the outcome arrives live. */
export function InstanceActions({ teamId, instanceId, status, label }: { teamId: string; instanceId: string; status: InstanceStatus; label: string }) {
  const trpc = useTRPC();
  const reconnect = useMutation(trpc.ops.reconnect.mutationOptions());
  const restart = useMutation(trpc.ops.restart.mutationOptions());
  const error = reconnect.error ?? restart.error;
  return (
    <div className="row">
      {RECONNECTABLE.has(status) && (
        <button type="button" className="secondary small" aria-label={`Reconnect ${label}`} disabled={reconnect.isPending} onClick={() => reconnect.mutate({ teamId, instanceId })}>
          {reconnect.isPending ? "Reconnecting…" : "Reconnect"}
        </button>
      )}
      {status === "permanently_failed" && (
        <button type="button" className="small" aria-label={`Restart ${label}`} disabled={restart.isPending} onClick={() => restart.mutate({ teamId, instanceId })}>
          {restart.isPending ? "Restarting…" : "Restart"}
        </button>
      )}
      {error && <span className="error" role="alert">{errorMessage(error)}</span>}
    </div>
  );
}
