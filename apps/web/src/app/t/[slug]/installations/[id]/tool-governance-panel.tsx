"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { OptimisticCheckbox } from "~/components/optimistic-checkbox";
import { useTRPC } from "~/trpc/react";
import { GovernanceHistory } from "./governance-history";
import { GovernedToolRow } from "./governed-tool-row";
import { ToolReview } from "./tool-review";
import { FormError } from "~/components/ui/form-error";

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
    return <FormError error={view.error} prefix="Could not load the tool settings: " className="error card" />;
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
      {(save.isError || setApproval.isError) && <FormError error={save.error ?? setApproval.error} />}

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

      <GovernanceHistory audit={audit} />
    </section>
  );
}
