"use client";

import { isRetrying, type InstanceStatus } from "@switchboard/core/status";
import type { CatalogueNumbers, CatalogueView } from "@switchboard/core/catalogue";
import { CatalogueFigure } from "./catalogue-figure";
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

/**
 * Status, retry countdown, degraded health and catalogue size of one instance. `label` overrides the status
 * words for a reader who is not the instance's owner; `showMessage` writes the status message out (lists),
 * where cells in a matrix keep it as the badge's description and tooltip.
 */
export function InstanceCell({
  cell,
  label,
  showMessage,
  counts,
}: {
  cell: CellData;
  label?: string;
  showMessage?: boolean;
  /** The catalogue view to count (default: the instance's discovered catalogue, what the server offers). */
  counts?: { numbers: CatalogueNumbers; view: CatalogueView };
}) {
  const retrying = isRetrying(cell.status);
  // Unless told otherwise, the discovered catalogue, labelled as such (the matrix, the lists).
  const shown = counts ?? {
    numbers: { toolCount: cell.toolCount, tokens: cell.totalTokens },
    view: "upstream" as const,
  };
  return (
    <div className="cell-stack">
      <StatusBadge status={cell.status} message={showMessage ? null : cell.statusMessage} label={label} />
      {showMessage && cell.statusMessage && <span className="muted small status-message">{cell.statusMessage}</span>}
      {cell.healthDegraded && (
        <span className="badge warning" title="Health checks are failing; the connection may be about to drop.">
          degraded
        </span>
      )}
      {retrying && <RetryInfo attempt={cell.reconnectAttempt} nextRetryAt={cell.nextRetryAt} />}
      {cell.status === "online" && (
        <span className="small">
          <CatalogueFigure numbers={shown.numbers} view={shown.view} testId="instance-tools" />
        </span>
      )}
    </div>
  );
}
