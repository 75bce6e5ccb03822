"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { CatalogueNumbers } from "@switchboard/core/catalogue";
import { CatalogueFigure } from "~/components/console/catalogue-figure";
import { OptimisticCheckbox } from "~/components/optimistic-checkbox";
import { useTRPC } from "~/trpc/react";
import { FormError } from "~/components/ui/form-error";
import { QueryState } from "~/components/ui/query-state";

/**
 * The tools the installations serve, per server; a member hides the ones their clients should not see. `total`
 * is what their clients see (the page's `instance.myCost`), so this heading and the page's headline are one number.
 */
export function MyTools({ teamId, total }: { teamId: string; total: CatalogueNumbers | undefined }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tools = useQuery(trpc.governance.myTools.queryOptions({ teamId }));
  const setHidden = useMutation(
    trpc.governance.setHidden.mutationOptions({
      onSuccess: () =>
        Promise.all([
          queryClient.invalidateQueries(trpc.governance.pathFilter()),
          queryClient.invalidateQueries(trpc.instance.pathFilter()),
        ]),
    }),
  );
  return (
    <section className="card stack" aria-labelledby="my-tools-heading" data-testid="my-tools">
      <div className="row" style={{ justifyContent: "space-between" }}>
        <h2 id="my-tools-heading" style={{ margin: 0 }}>
          My tools
        </h2>
        {total && <CatalogueFigure numbers={total} view="member" testId="my-tools-cost" />}
      </div>
      <p className="muted" style={{ margin: 0 }}>
        Untick a tool to keep it out of your clients. Admins decide which tools are available at all.
      </p>
      <FormError error={setHidden.error} />
      <QueryState
        query={tools}
        loading={<div className="skeleton" aria-busy="true" />}
        isEmpty={(data) => data.every((s) => s.tools.length === 0)}
        empty={<p className="empty">No tools yet. They appear once your servers are online.</p>}
      >
        {(data) =>
          data
            .filter((s) => s.tools.length > 0)
            .map((s) => (
              <details key={s.installationId} open={data.length === 1}>
                <summary>
                  {s.name}{" "}
                  <span className="muted small">
                    {s.tools.filter((t) => !t.hidden).length} of {s.tools.length} shown
                  </span>
                </summary>
                <ul style={{ listStyle: "none", padding: 0, margin: ".5rem 0 0" }}>
                  {s.tools.map((t) => (
                    <li key={t.name}>
                      <label style={{ flexDirection: "row", alignItems: "center", fontWeight: 400 }}>
                        <OptimisticCheckbox
                          checked={!t.hidden}
                          onCheckedChange={(shown) =>
                            setHidden.mutate({
                              teamId,
                              installationId: s.installationId,
                              toolName: t.name,
                              hidden: !shown,
                            })
                          }
                        />
                        <code>{t.exposedName}</code>
                        <span className="muted small">{t.tokens.toLocaleString()} tokens</span>
                        {t.needsApproval && (
                          <span className="badge warning" title="Each call waits for an approver's approval">
                            needs approval
                          </span>
                        )}
                      </label>
                    </li>
                  ))}
                </ul>
              </details>
            ))
        }
      </QueryState>
    </section>
  );
}
