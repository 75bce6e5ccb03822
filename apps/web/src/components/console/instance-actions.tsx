"use client";

import { useMutation } from "@tanstack/react-query";
import { isReconnectable, type InstanceStatus } from "@switchboard/core/status";
import { errorMessage } from "~/lib/errors";
import { useTRPC } from "~/trpc/react";

/**
 * Reconnect (online / offline / error) or, for admins, Restart (permanently_failed); the outcome arrives live.
 * A member sees who can bring a stopped server back instead of a button the server would refuse.
 */
export function InstanceActions({
  teamId,
  instanceId,
  status,
  label,
  canRestart,
}: {
  teamId: string;
  instanceId: string;
  status: InstanceStatus;
  label: string;
  canRestart: boolean;
}) {
  const trpc = useTRPC();
  const reconnect = useMutation(trpc.ops.reconnect.mutationOptions());
  const restart = useMutation(trpc.ops.restart.mutationOptions());
  const error = reconnect.error ?? restart.error;
  return (
    <div className="row">
      {isReconnectable(status) && (
        <button
          type="button"
          className="secondary small"
          aria-label={`Reconnect ${label}`}
          disabled={reconnect.isPending}
          onClick={() => reconnect.mutate({ teamId, instanceId })}
        >
          {reconnect.isPending ? "Reconnecting…" : "Reconnect"}
        </button>
      )}
      {status === "permanently_failed" && !canRestart && <span className="muted small">An admin must restart it.</span>}
      {status === "permanently_failed" && canRestart && (
        <button
          type="button"
          className="small"
          aria-label={`Restart ${label}`}
          disabled={restart.isPending}
          onClick={() => restart.mutate({ teamId, instanceId })}
        >
          {restart.isPending ? "Restarting…" : "Restart"}
        </button>
      )}
      {error && (
        <span className="error" role="alert">
          {errorMessage(error)}
        </span>
      )}
    </div>
  );
}
