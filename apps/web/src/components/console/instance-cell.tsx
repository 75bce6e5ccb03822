"use client";

import { isRetrying, type InstanceStatus } from "@switchboard/core/status";
import { RetryInfo } from "./retry-info";
import { StatusBadge } from "./status-badge";

export interface CellData {
  status: InstanceStatus;
  statusMessage: string | null;
  reconnectAttempt: number;
  nextRetryAt: Date | null;
  healthDegraded: boolean;
  toolCount: number;
  totalTokens: number;
}

/** Status, retry countdown, degraded health and catalogue size of one instance. */
export function InstanceCell({ cell }: { cell: CellData }) {
  const retrying = isRetrying(cell.status);
  return (
    <div className="cell-stack">
      <StatusBadge status={cell.status} message={cell.statusMessage} />
      {cell.healthDegraded && (
        <span className="badge warning" title="Health checks are failing; the connection may be about to drop.">
          degraded
        </span>
      )}
      {retrying && <RetryInfo attempt={cell.reconnectAttempt} nextRetryAt={cell.nextRetryAt} />}
      {cell.status === "online" && (
        <span className="muted small">
          {cell.toolCount} tools · {cell.totalTokens.toLocaleString()} tokens
        </span>
      )}
    </div>
  );
}
