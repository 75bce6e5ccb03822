"use client";

import { errorMessage } from "~/lib/errors";

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
  const changes = audit.data ?? [];
  return (
    <details>
      <summary>Who changed what</summary>
      {audit.isPending ? (
        <div className="skeleton" />
      ) : audit.isError ? (
        <p className="error" role="alert">
          {errorMessage(audit.error)}
        </p>
      ) : changes.length === 0 ? (
        <p className="muted">No changes yet.</p>
      ) : (
        <ol className="timeline" aria-label="Tool governance changes, newest first" data-testid="governance-audit">
          {changes.map((a) => (
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
    </details>
  );
}
