"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Fragment, useEffect, useState } from "react";
import { useUrlState } from "~/components/ui/use-url-state";
import { errorMessage } from "~/lib/errors";
import { useTRPC } from "~/trpc/react";
import { When } from "~/components/when";
import { LogTable } from "./log-table";

type Scope = { kind: "team"; teamId: string } | { kind: "deployment" };

/** A text filter that writes to the URL a moment after typing stops. */
function useDebounced(value: string, commit: (v: string) => void) {
  useEffect(() => {
    const timer = setTimeout(() => commit(value), 250);
    return () => clearTimeout(timer);
  }, [value, commit]);
}

const dayStart = (d: string) => (d ? new Date(`${d}T00:00:00`) : undefined);
const dayEnd = (d: string) => (d ? new Date(new Date(`${d}T00:00:00`).getTime() + 86_400_000) : undefined);

/**
 * The audit trail: who changed what, when, from where, with before/after. Filters live in the URL; the list pages
 * by "Older records"; export downloads every matching record (not only the loaded pages); Verify walks the whole
 * hash chain and names the first record that does not hold.
 */
export function AuditLog({ scope }: { scope: Scope }) {
  const trpc = useTRPC();
  const [get, set] = useUrlState({ actor: "", action: "", target: "", from: "", to: "", record: "" });
  const [actor, setActor] = useState(get("actor"));
  const [action, setAction] = useState(get("action"));
  const [target, setTarget] = useState(get("target"));
  useDebounced(actor, (v) => v !== get("actor") && set({ actor: v }));
  useDebounced(action, (v) => v !== get("action") && set({ action: v }));
  useDebounced(target, (v) => v !== get("target") && set({ target: v }));
  const filters = {
    ...(get("actor") ? { actor: get("actor") } : {}),
    ...(get("action") ? { action: get("action") } : {}),
    ...(get("target") ? { target: get("target") } : {}),
    ...(get("from") ? { from: dayStart(get("from")) } : {}),
    ...(get("to") ? { to: dayEnd(get("to")) } : {}),
  };
  const pageOptions = { getNextPageParam: (l: { nextCursor: string | null }) => l.nextCursor, staleTime: 5_000 };
  const teamLog = useInfiniteQuery(
    trpc.audit.list.infiniteQueryOptions(
      { teamId: scope.kind === "team" ? scope.teamId : "", limit: 50, ...filters },
      { ...pageOptions, enabled: scope.kind === "team" },
    ),
  );
  const allLog = useInfiniteQuery(
    trpc.audit.listAll.infiniteQueryOptions(
      { limit: 50, ...filters },
      { ...pageOptions, enabled: scope.kind === "deployment" },
    ),
  );
  const log = scope.kind === "team" ? teamLog : allLog;
  const rows = log.data?.pages.flatMap((p) => p.items) ?? [];
  const total = log.data?.pages[0]?.total ?? 0;
  const selected = get("record") || null;
  const filtered = Object.keys(filters).length > 0;
  const exportHref = (format: "csv" | "jsonl") => {
    const q = new URLSearchParams({ format });
    if (scope.kind === "team") q.set("teamId", scope.teamId);
    for (const k of ["actor", "action", "target"] as const) if (get(k)) q.set(k, get(k));
    if (get("from")) q.set("from", dayStart(get("from"))!.toISOString());
    if (get("to")) q.set("to", dayEnd(get("to"))!.toISOString());
    return `/api/audit/export?${q}`;
  };

  return (
    <div className="stack">
      <VerifyChain scope={scope} />
      <div className="card row" role="search" aria-label="Filter the audit trail" style={{ flexWrap: "wrap" }}>
        <label style={{ flexDirection: "row", alignItems: "center" }}>
          Who
          <input value={actor} onChange={(e) => setActor(e.target.value)} placeholder="name or email" />
        </label>
        <label style={{ flexDirection: "row", alignItems: "center" }}>
          Action
          <input value={action} onChange={(e) => setAction(e.target.value)} placeholder="e.g. installation" />
        </label>
        <label style={{ flexDirection: "row", alignItems: "center" }}>
          Target
          <input value={target} onChange={(e) => setTarget(e.target.value)} placeholder="name" />
        </label>
        <label style={{ flexDirection: "row", alignItems: "center" }}>
          From
          <input type="date" value={get("from")} onChange={(e) => set({ from: e.target.value })} />
        </label>
        <label style={{ flexDirection: "row", alignItems: "center" }}>
          To
          <input type="date" value={get("to")} onChange={(e) => set({ to: e.target.value })} />
        </label>
        <span className="muted small" role="status" data-testid="audit-total">
          {log.isPending ? "" : `${total.toLocaleString()} record${total === 1 ? "" : "s"}`}
          {log.isFetching && !log.isPending ? " · updating…" : ""}
        </span>
        <a className="button secondary small" href={exportHref("csv")} download>
          Export CSV
        </a>
        <a className="button secondary small" href={exportHref("jsonl")} download>
          Export JSON Lines
        </a>
      </div>
      <LogTable
        query={log}
        errorPrefix="Could not load the audit trail: "
        empty={`No audit records${filtered ? " match these filters" : " yet"}.`}
        frame={{ className: "table-scroll", tabIndex: 0, "aria-label": "Audit records" }}
        table={{ className: "responsive" }}
        head={
          <>
            <th>When</th>
            <th>Who</th>
            <th>Action</th>
            <th>Target</th>
            <th>From</th>
            <th />
          </>
        }
        rows={rows}
        olderLabel="Older records"
        row={(r) => (
          <Fragment key={r.id}>
            <tr data-testid="audit-row" aria-selected={selected === r.id}>
              <td data-label="When" className="small">
                <When date={r.createdAt} />
              </td>
              <td data-label="Who" className="small">
                {r.actorLabel}
              </td>
              <td data-label="Action">
                <code className="small">{r.action}</code>
              </td>
              <td data-label="Target" className="small">
                {r.targetLabel ?? r.targetId ?? "—"}
              </td>
              <td data-label="From" className="small muted">
                {r.ip ?? "—"}
              </td>
              <td data-label="">
                <button
                  type="button"
                  className="secondary small"
                  aria-expanded={selected === r.id}
                  aria-controls={`audit-detail-${r.id}`}
                  onClick={() => set({ record: selected === r.id ? "" : r.id })}
                >
                  Details
                </button>
              </td>
            </tr>
            {selected === r.id && (
              <tr id={`audit-detail-${r.id}`} data-testid="audit-detail">
                <td colSpan={6}>
                  <AuditDetail record={r} />
                </td>
              </tr>
            )}
          </Fragment>
        )}
      />
    </div>
  );
}

interface AuditRecordView {
  id: string;
  seq: number;
  chain: string;
  before: unknown;
  after: unknown;
  detail: unknown;
  client: string | null;
}

function AuditDetail({ record }: { record: AuditRecordView }) {
  const empty = (v: unknown) => v === null || v === undefined || (typeof v === "object" && Object.keys(v).length === 0);
  return (
    <div className="stack small">
      <div className="row" style={{ flexWrap: "wrap", gap: "1rem" }}>
        <span>
          Record #{record.seq} of <code>{record.chain}</code>
        </span>
        {record.client && <span className="muted">Client: {record.client}</span>}
      </div>
      <div className="row" style={{ flexWrap: "wrap", alignItems: "flex-start" }}>
        {!empty(record.before) && (
          <div style={{ flex: "1 1 16rem", minWidth: 0 }}>
            <strong>Before</strong>
            <pre className="code-block">{JSON.stringify(record.before, null, 2)}</pre>
          </div>
        )}
        {!empty(record.after) && (
          <div style={{ flex: "1 1 16rem", minWidth: 0 }}>
            <strong>{empty(record.before) ? "Details" : "After"}</strong>
            <pre className="code-block">{JSON.stringify(record.after, null, 2)}</pre>
          </div>
        )}
        {!empty(record.detail) && (
          <div style={{ flex: "1 1 16rem", minWidth: 0 }}>
            <strong>Outcome</strong>
            <pre className="code-block">{JSON.stringify(record.detail, null, 2)}</pre>
          </div>
        )}
      </div>
    </div>
  );
}

function VerifyChain({ scope }: { scope: Scope }) {
  const trpc = useTRPC();
  const teamVerify = useMutation(trpc.audit.verify.mutationOptions());
  const deploymentVerify = useMutation(trpc.audit.verifyDeployment.mutationOptions());
  const verify = scope.kind === "team" ? teamVerify : deploymentVerify;
  const run = () => (scope.kind === "team" ? teamVerify.mutate({ teamId: scope.teamId }) : deploymentVerify.mutate());
  const result = verify.data;
  return (
    <div className="card row" style={{ flexWrap: "wrap", justifyContent: "space-between" }}>
      <div className="stack" style={{ gap: ".25rem" }}>
        <strong>Tamper check</strong>
        <span className="muted small">
          Each record holds the hash of the one before it; verifying walks the{" "}
          {scope.kind === "team" ? "team's" : "deployment's own"} chain and names the first record that does not match.
        </span>
        <div role="status" data-testid="audit-verify-result">
          {verify.isPending && "Verifying…"}
          {verify.isError && <span className="error">Could not verify: {errorMessage(verify.error)}</span>}
          {result && !result.broken && (
            <span className="badge ok">
              Intact: {result.checked.toLocaleString()} record{result.checked === 1 ? "" : "s"} checked
              {result.pruned ? `, ${result.pruned.toLocaleString()} earlier ones pruned by retention` : ""}.
            </span>
          )}
          {result?.broken && (
            <span className="error">
              Broken at record #{result.broken.seq} ({result.broken.action}, {result.broken.createdAt.toISOString()}):{" "}
              {result.broken.message}. Record id {result.broken.id}.
            </span>
          )}
        </div>
      </div>
      <button type="button" className="secondary" onClick={run} disabled={verify.isPending}>
        Verify the chain
      </button>
    </div>
  );
}

/** A team's retention settings (admins). */
export function RetentionSettings({ teamId }: { teamId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const current = useQuery(trpc.audit.retention.queryOptions({ teamId }));
  const save = useMutation(
    trpc.audit.setRetention.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.audit.retention.pathFilter()),
    }),
  );
  const [form, setForm] = useState<Record<string, string> | null>(null);
  const values = form ?? {
    requestLogRetentionDays: String(current.data?.requestLogRetentionDays ?? ""),
    rollupRetentionDays: String(current.data?.rollupRetentionDays ?? ""),
    auditRetentionDays: String(current.data?.auditRetentionDays ?? ""),
  };
  const fields = [
    ["requestLogRetentionDays", "Request log"],
    ["rollupRetentionDays", "Activity roll-ups"],
    ["auditRetentionDays", "Audit trail"],
  ] as const;
  if (current.isPending) return <div className="card skeleton" aria-busy="true" />;
  if (current.isError) return <p className="error card">Could not load retention: {errorMessage(current.error)}</p>;
  return (
    <form
      className="card stack"
      aria-label="Retention"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate(
          {
            teamId,
            requestLogRetentionDays: Number(values.requestLogRetentionDays),
            rollupRetentionDays: Number(values.rollupRetentionDays),
            auditRetentionDays: Number(values.auditRetentionDays),
          },
          { onSuccess: () => setForm(null) },
        );
      }}
    >
      <strong>Retention</strong>
      <span className="muted small">
        Older records are deleted by the worker every hour, in small batches. The audit chain stays verifiable: the last
        deleted record's hash is kept as the chain's anchor.
      </span>
      <div className="row" style={{ flexWrap: "wrap" }}>
        {fields.map(([key, label]) => (
          <label key={key}>
            {label} (days)
            <input
              type="number"
              min={1}
              max={3650}
              required
              value={values[key]}
              onChange={(e) => setForm({ ...values, [key]: e.target.value })}
            />
          </label>
        ))}
      </div>
      <div className="row">
        <button type="submit" disabled={save.isPending || form === null}>
          Save retention
        </button>
        <span role="status" className="small">
          {save.isError ? <span className="error">{errorMessage(save.error)}</span> : save.isSuccess ? "Saved." : ""}
        </span>
      </div>
    </form>
  );
}
