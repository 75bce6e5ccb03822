"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { diffLines } from "diff";
import { useState } from "react";
import { OptimisticCheckbox } from "~/components/optimistic-checkbox";
import { errorMessage } from "~/lib/errors";
import { useTRPC } from "~/trpc/react";

const STATE_LABELS = {
  on: { label: "on", tone: "ok" },
  off: { label: "off", tone: "" },
  new_off: { label: "new, off until reviewed", tone: "warning" },
  awaiting_review: { label: "changed, awaiting review", tone: "warning" },
  rejected: { label: "change rejected", tone: "danger" },
} as const;

/**
 * For admins: what this installation exposes to every member. Tools on or off, exposed names and descriptions,
 * prompts and templates, how new tools arrive, pinning with review of changed definitions, which tools need an
 * approver's approval for each call (approvers: the Settings tab), and who changed what.
 */
export function ToolGovernancePanel({ teamId, installationId }: { teamId: string; installationId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const view = useQuery(trpc.governance.installation.queryOptions({ teamId, installationId }));
  const audit = useQuery(trpc.governance.audit.queryOptions({ teamId, installationId }));
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries(trpc.governance.pathFilter()),
      queryClient.invalidateQueries(trpc.instance.pathFilter()),
    ]);
  const save = useMutation(trpc.governance.save.mutationOptions({ onSuccess: refresh }));
  const setApproval = useMutation(trpc.governance.setToolApproval.mutationOptions({ onSuccess: refresh }));
  const [editing, setEditing] = useState<string | null>(null);
  const [reviewing, setReviewing] = useState<string | null>(null);

  if (view.isPending)
    return (
      <div className="card stack" aria-busy="true">
        <div className="skeleton" />
        <div className="skeleton" />
      </div>
    );
  if (view.isError)
    return (
      <p className="error card" role="alert">
        Could not load the tool settings: {errorMessage(view.error)}
      </p>
    );
  const v = view.data;
  const change = (input: Omit<Parameters<typeof save.mutate>[0], "teamId" | "installationId">) =>
    save.mutate({ teamId, installationId, ...input });

  return (
    <section className="card stack" aria-labelledby="governance-heading" data-testid="tool-governance">
      <div className="row" style={{ justifyContent: "space-between" }}>
        <h2 id="governance-heading" style={{ margin: 0 }}>
          What members can use
        </h2>
        {v.awaitingReview > 0 && (
          <span className="badge warning" data-testid="awaiting-review">
            {v.awaitingReview} awaiting review
          </span>
        )}
      </div>
      <div className="row" style={{ gap: "1.5rem" }}>
        <label style={{ flexDirection: "row", alignItems: "center" }}>
          New tools found by a later discovery
          <select
            aria-label="New tools"
            value={v.newTools}
            disabled={save.isPending}
            onChange={(e) => change({ newTools: e.target.value as "on" | "off_until_reviewed" })}
          >
            <option value="on">on</option>
            <option value="off_until_reviewed">off until reviewed</option>
          </select>
        </label>
        <label style={{ flexDirection: "row", alignItems: "center" }}>
          <OptimisticCheckbox checked={v.pinTools} onCheckedChange={(pinTools) => change({ pinTools })} />
          Pin tool definitions (a changed description or schema waits for your approval)
        </label>
      </div>
      {(save.isError || setApproval.isError) && (
        <p className="error" role="alert">
          {errorMessage(save.error ?? setApproval.error)}
        </p>
      )}

      {v.tools.length === 0 ? (
        <div className="empty">No tools discovered yet. They appear once an instance is online.</div>
      ) : (
        <div style={{ overflowX: "auto" }}>
          <table className="responsive" aria-label="Tools of this server">
            <thead>
              <tr>
                <th>On</th>
                <th>Tool as clients see it</th>
                <th>Description</th>
                <th>State</th>
                <th>Needs approval</th>
                <th>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {v.tools.map((t) => (
                <GovernedToolRow
                  key={t.name}
                  tool={t}
                  busy={save.isPending}
                  editing={editing === t.name}
                  onEdit={() => setEditing(editing === t.name ? null : t.name)}
                  onToggle={(enabled) => change({ tools: [{ name: t.name, enabled }] })}
                  onApproval={(requiresApproval) =>
                    setApproval.mutate({ teamId, installationId, toolName: t.name, requiresApproval })
                  }
                  onRename={(exposedName, exposedDescription) =>
                    save.mutate(
                      { teamId, installationId, tools: [{ name: t.name, exposedName, exposedDescription }] },
                      { onSuccess: () => setEditing(null) },
                    )
                  }
                  onReview={() => setReviewing(reviewing === t.name ? null : t.name)}
                  reviewing={reviewing === t.name}
                  review={
                    reviewing === t.name ? (
                      <ToolReview
                        teamId={teamId}
                        installationId={installationId}
                        name={t.name}
                        onDone={() => {
                          setReviewing(null);
                          void refresh();
                        }}
                      />
                    ) : null
                  }
                />
              ))}
            </tbody>
          </table>
        </div>
      )}

      {(v.prompts.length > 0 || v.resourceTemplates.length > 0) && (
        <details>
          <summary>Prompts and resource templates ({v.prompts.length + v.resourceTemplates.length})</summary>
          <ul className="stack" style={{ listStyle: "none", padding: 0 }}>
            {v.prompts.map((p) => (
              <li key={`p-${p.name}`}>
                <label style={{ flexDirection: "row", alignItems: "center" }}>
                  <OptimisticCheckbox
                    checked={p.enabled}
                    onCheckedChange={(enabled) => change({ prompts: [{ name: p.name, enabled }] })}
                  />
                  Prompt <code>{p.name}</code> <span className="muted small">{p.description}</span>
                </label>
              </li>
            ))}
            {v.resourceTemplates.map((t) => (
              <li key={`t-${t.uriTemplate}`}>
                <label style={{ flexDirection: "row", alignItems: "center" }}>
                  <OptimisticCheckbox
                    checked={t.enabled}
                    onCheckedChange={(enabled) =>
                      change({ resourceTemplates: [{ uriTemplate: t.uriTemplate, enabled }] })
                    }
                  />
                  Template <code>{t.uriTemplate}</code> <span className="muted small">{t.description}</span>
                </label>
              </li>
            ))}
          </ul>
        </details>
      )}

      <details>
        <summary>Who changed what</summary>
        {audit.isPending ? (
          <div className="skeleton" />
        ) : audit.isError ? (
          <p className="error" role="alert">
            {errorMessage(audit.error)}
          </p>
        ) : audit.data.length === 0 ? (
          <p className="muted">No changes yet.</p>
        ) : (
          <ol className="timeline" aria-label="Tool governance changes, newest first" data-testid="governance-audit">
            {audit.data.map((a) => (
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
    </section>
  );
}

type GovernedTool = {
  name: string;
  description: string;
  tokenCount: number;
  enabled: boolean;
  exposedName: string | null;
  exposedDescription: string | null;
  namespacedName: string;
  nameTooLong: boolean;
  state: keyof typeof STATE_LABELS;
  requiresApproval: boolean;
};

function GovernedToolRow(props: {
  tool: GovernedTool;
  busy: boolean;
  editing: boolean;
  reviewing: boolean;
  review: React.ReactNode;
  onEdit: () => void;
  onToggle: (enabled: boolean) => void;
  onApproval: (requiresApproval: boolean) => void;
  onRename: (exposedName: string | null, exposedDescription: string | null) => void;
  onReview: () => void;
}) {
  const { tool: t } = props;
  const [name, setName] = useState(t.exposedName ?? "");
  const [description, setDescription] = useState(t.exposedDescription ?? "");
  const state = STATE_LABELS[t.state];
  const needsReview = t.state === "awaiting_review" || t.state === "rejected";
  return (
    <>
      <tr data-testid="governed-tool" data-tool={t.name}>
        <td data-label="On">
          <OptimisticCheckbox aria-label={`Expose ${t.name}`} checked={t.enabled} onCheckedChange={props.onToggle} />
        </td>
        <td data-label="Tool">
          <code>{t.namespacedName}</code>
          {t.exposedName && (
            <div className="muted small">
              upstream: <code>{t.name}</code>
            </div>
          )}
          {t.nameTooLong && (
            <span className="badge warning" style={{ marginLeft: 6 }}>
              name too long
            </span>
          )}
        </td>
        <td className="small" data-label="Description">
          {t.exposedDescription ?? (t.description || <span className="muted">—</span>)}
        </td>
        <td data-label="State">
          <span className={`badge ${state.tone}`}>{state.label}</span>
        </td>
        <td data-label="Needs approval">
          <OptimisticCheckbox
            aria-label={`${t.name} needs approval for each call`}
            checked={t.requiresApproval}
            onCheckedChange={props.onApproval}
          />
        </td>
        <td data-label="">
          <div className="row" style={{ flexWrap: "nowrap" }}>
            {needsReview && (
              <button type="button" className="small" aria-expanded={props.reviewing} onClick={props.onReview}>
                {props.reviewing ? "Close review" : "Review"}
              </button>
            )}
            <button type="button" className="secondary small" aria-expanded={props.editing} onClick={props.onEdit}>
              {props.editing ? "Cancel" : "Rename"}
            </button>
          </div>
        </td>
      </tr>
      {props.editing && (
        <tr>
          <td colSpan={6}>
            <form
              className="stack"
              aria-label={`Rename ${t.name}`}
              onSubmit={(e) => {
                e.preventDefault();
                props.onRename(name.trim() || null, description.trim() || null);
              }}
            >
              <div className="row" style={{ alignItems: "flex-end" }}>
                <label style={{ flex: 1 }}>
                  Exposed name (empty: the upstream's)
                  <input
                    value={name}
                    onChange={(e) => setName(e.target.value)}
                    placeholder={t.name}
                    maxLength={64}
                    pattern="[A-Za-z0-9_.\-]+"
                  />
                </label>
                <button type="submit" disabled={props.busy}>
                  Save name
                </button>
              </div>
              <label>
                Exposed description (empty: the upstream's)
                <textarea
                  value={description}
                  onChange={(e) => setDescription(e.target.value)}
                  rows={2}
                  maxLength={4000}
                  placeholder={t.description}
                />
              </label>
            </form>
          </td>
        </tr>
      )}
      {props.reviewing && (
        <tr>
          <td colSpan={6}>{props.review}</td>
        </tr>
      )}
    </>
  );
}

/** The approved and the new definition side by side as a line diff, with Approve and Reject. */
function ToolReview({
  teamId,
  installationId,
  name,
  onDone,
}: {
  teamId: string;
  installationId: string;
  name: string;
  onDone: () => void;
}) {
  const trpc = useTRPC();
  const review = useQuery(trpc.governance.review.queryOptions({ teamId, installationId, name }));
  const decide = useMutation(trpc.governance.decide.mutationOptions({ onSuccess: onDone }));
  if (review.isPending) return <div className="skeleton" aria-busy="true" />;
  if (review.isError)
    return (
      <p className="error" role="alert">
        {errorMessage(review.error)}
      </p>
    );
  const before = review.data.approved ? JSON.stringify(review.data.approved, null, 2) : "";
  const after = JSON.stringify(review.data.proposed, null, 2);
  const parts = diffLines(before, after);
  return (
    <div className="stack" data-testid="tool-review">
      <strong>
        {review.data.approved ? `The definition of ${name} changed` : `${name} is new`}: check it before members can use
        it.
      </strong>
      <pre className="block" aria-label="Definition diff" style={{ maxHeight: 420 }}>
        {parts.map((p, i) => (
          <span
            key={i}
            data-change={p.added ? "added" : p.removed ? "removed" : "same"}
            style={{ display: "block", background: p.added ? "#d3f9d8" : p.removed ? "#ffe3e3" : undefined }}
          >
            {p.value
              .replace(/\n$/, "")
              .split("\n")
              .map((line) => `${p.added ? "+ " : p.removed ? "- " : "  "}${line}`)
              .join("\n")}
          </span>
        ))}
      </pre>
      {decide.isError && (
        <p className="error" role="alert">
          {errorMessage(decide.error)}
        </p>
      )}
      <div className="row">
        <button
          type="button"
          disabled={decide.isPending}
          onClick={() => decide.mutate({ teamId, installationId, name, hash: review.data.hash, decision: "approved" })}
        >
          Approve new definition
        </button>
        <button
          type="button"
          className="danger"
          disabled={decide.isPending}
          onClick={() => decide.mutate({ teamId, installationId, name, hash: review.data.hash, decision: "rejected" })}
        >
          Reject
        </button>
      </div>
    </div>
  );
}
