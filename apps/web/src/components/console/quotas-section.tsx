"use client";

import {
  QUOTA_SUBJECTS,
  QUOTA_WINDOW_NAMES,
  defaultWriteMax,
  toolQuotaProblems,
  type QuotaSubject,
  type QuotaWindow,
  type ToolQuota,
} from "@switchboard/core/governance";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { ConfirmButton } from "~/components/confirm-button";
import { FormActions } from "~/components/ui/form-actions";
import { ResponsiveTable } from "~/components/ui/responsive-table";
import { useTRPC } from "~/trpc/react";

const SUBJECT_LABEL: Record<QuotaSubject, string> = {
  member: "Each member",
  token: "Each access token",
  installation: "The server, all members together",
  tool: "One tool, all members together",
};

/** One limit in words: "Each member: 2 tool calls a minute, 1 of them not read-only". */
export function describeQuota(q: Omit<ToolQuota, "id">): string {
  const writes = q.writeMax ?? defaultWriteMax(q.max);
  const who = q.subject === "tool" && q.toolName ? `${q.toolName}, all members together` : SUBJECT_LABEL[q.subject];
  return `${who}: ${q.max} tool calls a ${q.window}, ${writes} of them not read-only`;
}

type Draft = { subject: QuotaSubject; window: QuotaWindow; max: string; writeMax: string; toolName: string };

const emptyDraft: Draft = { subject: "member", window: "minute", max: "", writeMax: "", toolName: "" };

/**
 * Quotas on tool calls (docs/quotas.md), for one installation (`installationId`) or for the whole team (null):
 * the limits of that scope, add, edit and remove. The API replaces the team's whole list, so the other scopes'
 * limits are sent back unchanged (with their ids, which keeps their counts).
 */
export function QuotasSection({ teamId, installationId }: { teamId: string; installationId: string | null }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const headingId = useId();
  const query = useQuery(trpc.governance.quotas.queryOptions({ teamId }, { staleTime: 5_000 }));
  const save = useMutation(
    trpc.governance.setQuotas.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.governance.quotas.pathFilter()),
    }),
  );
  const [editing, setEditing] = useState<{ id: string | null; draft: Draft } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const all = query.data ?? [];
  const mine = all.filter((q) => q.installationId === installationId);
  const subjects = QUOTA_SUBJECTS.filter((s) => installationId !== null || s !== "tool");

  const send = (quotas: ReadonlyArray<Omit<ToolQuota, "id"> & { id?: string }>, after?: () => void) =>
    save.mutate({ teamId, quotas: [...quotas] }, { onSuccess: () => after?.() });

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    if (!editing) return;
    const d = editing.draft;
    const quota = {
      installationId,
      toolName: d.subject === "tool" ? d.toolName.trim() || null : null,
      subject: d.subject,
      window: d.window,
      max: Number(d.max),
      writeMax: d.writeMax.trim() === "" ? null : Number(d.writeMax),
    };
    const problems =
      d.subject === "tool" && !quota.toolName ? ["Name the tool this limit covers."] : toolQuotaProblems(quota);
    if (problems[0]) {
      setProblem(problems[0]);
      return;
    }
    setProblem(null);
    const others = all.filter((q) => q.id !== editing.id);
    send([...others, editing.id ? { ...quota, id: editing.id } : quota], () => setEditing(null));
  };

  const set = (patch: Partial<Draft>) => editing && setEditing({ ...editing, draft: { ...editing.draft, ...patch } });

  return (
    <section className="card stack" aria-labelledby={headingId}>
      <h2 id={headingId}>Quotas</h2>
      <p className="muted">
        {installationId
          ? "Limits on tool calls to this server. A call past a limit is refused until the window ends."
          : "Limits on tool calls to every server of the team. A call past a limit is refused until the window ends."}{" "}
        A change applies within 5 seconds.
      </p>
      <ResponsiveTable
        label="Quotas"
        columns={["Limit", "Counted for", "Window", "Calls", "Not read-only"]}
        actions
        query={query}
        rows={mine}
        empty="No limit: calls are not counted."
        errorPrefix="Could not load the quotas: "
        actionError={editing ? null : save.error}
        row={(q) => (
          <tr key={q.id}>
            <th scope="row">{describeQuota(q)}</th>
            <td data-label="Counted for">{q.subject === "tool" ? `${q.toolName}` : SUBJECT_LABEL[q.subject]}</td>
            <td data-label="Window">{q.window}</td>
            <td data-label="Calls">{q.max}</td>
            <td data-label="Not read-only">{q.writeMax ?? `${defaultWriteMax(q.max)} (default)`}</td>
            <td data-label="">
              <div className="row" style={{ gap: 8 }}>
                <button
                  type="button"
                  className="secondary"
                  aria-label={`Edit ${describeQuota(q)}`}
                  onClick={() =>
                    setEditing({
                      id: q.id,
                      draft: {
                        subject: q.subject,
                        window: q.window,
                        max: String(q.max),
                        writeMax: q.writeMax === null ? "" : String(q.writeMax),
                        toolName: q.toolName ?? "",
                      },
                    })
                  }
                >
                  Edit
                </button>
                <ConfirmButton
                  label="Remove"
                  triggerLabel={`Remove ${describeQuota(q)}`}
                  title="Remove this limit?"
                  body={`${describeQuota(q)}. Calls it holds back pass again within 5 seconds, and its counts are dropped.`}
                  confirmLabel="Remove limit"
                  disabled={save.isPending}
                  onConfirm={() => send(all.filter((o) => o.id !== q.id))}
                />
              </div>
            </td>
          </tr>
        )}
      />
      {editing ? (
        <form className="stack" onSubmit={submit} aria-label={editing.id ? "Edit limit" : "Add a limit"} noValidate>
          <label>
            Counted for
            <select value={editing.draft.subject} onChange={(e) => set({ subject: e.target.value as QuotaSubject })}>
              {subjects.map((s) => (
                <option key={s} value={s}>
                  {SUBJECT_LABEL[s]}
                </option>
              ))}
            </select>
          </label>
          {editing.draft.subject === "tool" && (
            <label>
              Tool
              <input value={editing.draft.toolName} onChange={(e) => set({ toolName: e.target.value })} />
            </label>
          )}
          <label>
            Window
            <select value={editing.draft.window} onChange={(e) => set({ window: e.target.value as QuotaWindow })}>
              {QUOTA_WINDOW_NAMES.map((w) => (
                <option key={w} value={w}>
                  a {w}
                </option>
              ))}
            </select>
          </label>
          <label>
            Tool calls per window
            <input
              inputMode="numeric"
              value={editing.draft.max}
              onChange={(e) => set({ max: e.target.value })}
              required
            />
          </label>
          <label>
            Calls to tools that are not read-only per window (empty: a fifth)
            <input
              inputMode="numeric"
              value={editing.draft.writeMax}
              onChange={(e) => set({ writeMax: e.target.value })}
            />
          </label>
          {problem && (
            <p className="error" role="alert">
              {problem}
            </p>
          )}
          <FormActions
            mutation={save}
            label={editing.id ? "Save limit" : "Add limit"}
            pendingLabel="Saving…"
            onCancel={() => {
              setEditing(null);
              setProblem(null);
              save.reset();
            }}
          />
        </form>
      ) : (
        <div>
          <button type="button" onClick={() => setEditing({ id: null, draft: emptyDraft })} disabled={query.isPending}>
            Add a limit
          </button>
        </div>
      )}
      {save.isSuccess && !editing && (
        <p className="muted" role="status">
          Saved. Gateways apply it within 5 seconds.
        </p>
      )}
    </section>
  );
}
