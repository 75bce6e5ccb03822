"use client";

import { QueryState } from "~/components/ui/query-state";

interface GovernanceChange {
  id: string;
  createdAt: Date;
  actor: string;
  action: string;
  target: string;
}

/** Who changed what in an installation's tool governance, newest first, behind a disclosure. */
export function GovernanceHistory({
  audit,
}: {
  audit: { isPending: boolean; isError: boolean; error: unknown; data: GovernanceChange[] | undefined };
}) {
  return (
    <details>
      <summary>Who changed what</summary>
      <QueryState
        query={audit}
        loading={<div className="skeleton" />}
        isEmpty={(data) => data.length === 0}
        empty={<p className="muted">No changes yet.</p>}
      >
        {(data) => (
          <ol className="timeline" aria-label="Tool governance changes, newest first" data-testid="governance-audit">
            {data.map((a) => (
              <li key={a.id}>
                <time className="muted small" dateTime={a.createdAt.toISOString()}>
                  {a.createdAt.toLocaleString()}
                </time>
                <span>{a.actor}</span>
                <span className="badge">{a.action.replaceAll("_", " ")}</span>
                <code className="small">{a.target}</code>
              </li>
            ))}
          </ol>
        )}
      </QueryState>
    </details>
  );
}
