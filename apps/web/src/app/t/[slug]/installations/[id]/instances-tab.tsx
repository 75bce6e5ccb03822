"use client";

import type { UseInfiniteQueryResult } from "@tanstack/react-query";
import { revisionDescription } from "@switchboard/core/revisions";
import type { InstanceStatus } from "@switchboard/core/status";
import { InstanceActions } from "~/components/console/instance-actions";
import { ErrorText } from "~/components/console/error-text";
import { InstanceCell } from "~/components/console/instance-cell";
import { When } from "~/components/when";
import { FormError } from "~/components/ui/form-error";

interface Row {
  id: string;
  userId: string;
  status: InstanceStatus;
  statusMessage: string | null;
  statusChangedAt: Date;
  reconnectAttempt: number;
  nextRetryAt: Date | null;
  lastError: string | null;
  healthDegraded: boolean;
  toolCount: number;
  totalTokens: number;
  protocolVersion: string | null;
  user: { id: string; name: string; email: string };
}

export function InstancesTab({
  teamId,
  canRestart,
  query,
  rows,
  onHistory,
  onTools,
}: {
  teamId: string;
  canRestart: boolean;
  query: UseInfiniteQueryResult<unknown, unknown>;
  rows: Row[];
  onHistory: (instanceId: string) => void;
  onTools: (instanceId: string) => void;
}) {
  if (query.isPending)
    return (
      <div className="card stack" aria-busy="true">
        <div className="skeleton" />
        <div className="skeleton" />
      </div>
    );
  if (query.isError)
    return <FormError error={query.error} prefix="Could not load the instances: " className="error card" />;
  if (rows.length === 0)
    return <div className="card empty">No instances yet: the worker creates one per member in a moment.</div>;
  return (
    <div className="card stack">
      <table className="responsive" aria-label="Instances">
        <thead>
          <tr>
            <th scope="col">Member</th>
            <th scope="col">Status</th>
            <th scope="col">Message</th>
            <th scope="col">Since</th>
            <th scope="col">Protocol</th>
            <th scope="col">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.id} data-testid={`instance-${r.user.email}`}>
              <th scope="row">
                {r.user.name}
                <div className="muted small">{r.user.email}</div>
              </th>
              <td data-label="Status">
                <InstanceCell
                  cell={r}
                  counts={{ numbers: { toolCount: r.toolCount, tokens: r.totalTokens }, view: "upstream" }}
                />
              </td>
              <td className="small" data-label="Message">
                {r.statusMessage || r.lastError ? (
                  <ErrorText
                    message={r.statusMessage ?? r.lastError}
                    detail={r.lastError}
                    testId="instance-status-message"
                  />
                ) : (
                  "—"
                )}
              </td>
              <td className="small" data-label="Since">
                <When date={r.statusChangedAt} />
              </td>
              <td className="small" data-label="Protocol" data-testid="instance-protocol">
                {r.protocolVersion ? (
                  <span title={revisionDescription(r.protocolVersion)}>{r.protocolVersion}</span>
                ) : (
                  <span className="muted">not yet known</span>
                )}
              </td>
              <td data-label="">
                <div className="row">
                  <InstanceActions
                    teamId={teamId}
                    instanceId={r.id}
                    status={r.status}
                    label={`instance of ${r.user.name}`}
                    canRestart={canRestart}
                  />
                  <button type="button" className="secondary small" onClick={() => onTools(r.id)}>
                    Tools
                  </button>
                  <button type="button" className="secondary small" onClick={() => onHistory(r.id)}>
                    History
                  </button>
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {query.hasNextPage && (
        <button
          type="button"
          className="secondary"
          onClick={() => query.fetchNextPage()}
          disabled={query.isFetchingNextPage}
        >
          {query.isFetchingNextPage ? "Loading…" : "More members"}
        </button>
      )}
    </div>
  );
}
