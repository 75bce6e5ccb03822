"use client";

import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { ConfirmButton } from "~/components/confirm-button";
import { useTRPC } from "~/trpc/react";
import { EditTemplate } from "./edit-template";
import { TemplateForm } from "./template-form";
import { LoadMore } from "~/components/ui/load-more";
import { FormError } from "~/components/ui/form-error";
import { QueryState, Skeletons } from "~/components/ui/query-state";

const TRANSPORT_LABEL = { stdio: "stdio", sse: "SSE", streamable_http: "Streamable HTTP" } as const;

export function CatalogueView({ teamId, isAdmin, teamSlug }: { teamId: string; isAdmin: boolean; teamSlug: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<string | null>(null);
  const templates = useInfiniteQuery(
    trpc.catalogue.list.infiniteQueryOptions({ teamId, limit: 25 }, { getNextPageParam: (last) => last.nextCursor }),
  );
  const remove = useMutation(
    trpc.catalogue.remove.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.catalogue.pathFilter()),
    }),
  );
  const rows = templates.data?.pages.flatMap((p) => p.items) ?? [];

  return (
    <div className="stack">
      <div className="row" style={{ justifyContent: "space-between" }}>
        <h1 style={{ margin: 0 }}>Catalogue</h1>
        {isAdmin && !adding && (
          <button type="button" onClick={() => setAdding(true)}>
            Add a server
          </button>
        )}
      </div>
      <p className="muted">
        The MCP servers your team can install. A template says how to run or reach a server and which settings the team
        and each member provide.
      </p>
      {adding && <TemplateForm teamId={teamId} onDone={() => setAdding(false)} />}
      <FormError error={remove.error} />
      <QueryState
        query={templates}
        loading={<Skeletons className="card stack" />}
        errorPrefix="Could not load the catalogue: "
        errorClassName="error card"
        isEmpty={() => rows.length === 0}
        empty={
          <div className="card empty">
            No servers in the catalogue yet.{isAdmin ? " Add one to get started." : " Ask an admin to add one."}
          </div>
        }
      >
        {() =>
          rows.map((t) => (
            <article key={t.id} className="card stack" aria-labelledby={`tpl-${t.id}`} data-testid="template-card">
              <div className="row" style={{ justifyContent: "space-between" }}>
                <div className="row">
                  <h2 id={`tpl-${t.id}`} style={{ margin: 0 }}>
                    {t.name}
                  </h2>
                  <span className="badge">{TRANSPORT_LABEL[t.transport]}</span>
                  {t.oauth && <span className="badge warning">OAuth</span>}
                  <code className="muted">{t.slug}</code>
                </div>
                {isAdmin && (
                  <div className="row">
                    <button
                      type="button"
                      className="secondary"
                      onClick={() => setEditing(editing === t.id ? null : t.id)}
                      aria-expanded={editing === t.id}
                    >
                      Edit
                    </button>
                    <ConfirmButton
                      label="Delete"
                      title={`Delete ${t.name}?`}
                      body={
                        t.installationCount > 0
                          ? `It is installed ${t.installationCount} time(s); remove those installations first.`
                          : "The template is removed from the catalogue."
                      }
                      confirmLabel="Delete template"
                      disabled={remove.isPending}
                      onConfirm={() => remove.mutate({ teamId, templateId: t.id })}
                    />
                  </div>
                )}
              </div>
              {t.description && <p style={{ margin: 0 }}>{t.description}</p>}
              <code className="block">{t.transport === "stdio" ? [t.command, ...t.args].join(" ") : t.url}</code>
              {t.fields.length > 0 ? (
                <table>
                  <thead>
                    <tr>
                      <th>Setting</th>
                      <th>Provided by</th>
                      <th>Kind</th>
                      <th>Type</th>
                      <th>Required</th>
                      <th>Default</th>
                    </tr>
                  </thead>
                  <tbody>
                    {t.fields.map((f) => (
                      <tr key={f.key}>
                        <td>
                          <code>{f.key}</code>
                          {f.secret && (
                            <span className="badge" style={{ marginLeft: 6 }}>
                              secret
                            </span>
                          )}
                          {f.description && <div className="muted">{f.description}</div>}
                        </td>
                        <td>{f.tier === "team" ? "team admin" : "each member"}</td>
                        <td>{f.kind}</td>
                        <td>{f.type}</td>
                        <td>{f.required ? "yes" : "no"}</td>
                        <td>{f.defaultValue ?? "—"}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              ) : (
                <span className="muted">No settings.</span>
              )}
              <span className="muted" data-testid="template-usage">
                {t.installations.length === 0 ? (
                  "Not installed."
                ) : (
                  <>
                    Used by{" "}
                    {t.installations.map((i, n) => (
                      <span key={i.id}>
                        {n > 0 && ", "}
                        <Link href={`/t/${teamSlug}/installations/${i.id}`}>{i.name}</Link>
                      </span>
                    ))}
                  </>
                )}
              </span>
              {editing === t.id && <EditTemplate teamId={teamId} template={t} onDone={() => setEditing(null)} />}
            </article>
          ))
        }
      </QueryState>
      <LoadMore query={templates} />
    </div>
  );
}
