"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useState } from "react";
import { FormActions } from "~/components/ui/form-actions";
import { useTRPC } from "~/trpc/react";
import { QueryState } from "~/components/ui/query-state";

type Person = { id: string; name: string; email: string };

/**
 * For admins: who approves held calls to this server's tools that need approval. Nobody named: the team's admins;
 * named members replace them. The caller of a call never decides it, whoever is named.
 */
export function ApproversSection({ teamId, installationId }: { teamId: string; installationId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const headingId = useId();
  const searchId = useId();
  const current = useQuery(trpc.governance.approvers.queryOptions({ teamId, installationId }));
  const [chosen, setChosen] = useState<Person[] | null>(null);
  const [search, setSearch] = useState("");
  const [pick, setPick] = useState("");
  const members = useQuery({
    ...trpc.team.members.queryOptions({ teamId, search: search || undefined, limit: 20 }),
    enabled: chosen !== null,
  });
  const save = useMutation(
    trpc.governance.setApprovers.mutationOptions({
      onSuccess: (data) => {
        queryClient.setQueryData(trpc.governance.approvers.queryKey({ teamId, installationId }), data);
        setChosen(null);
      },
    }),
  );
  useEffect(() => setPick(""), [search]);

  const list = chosen ?? current.data?.approvers ?? [];
  const candidates = (members.data?.items ?? []).filter((m) => !list.some((p) => p.id === m.user.id));

  return (
    <section className="card stack" aria-labelledby={headingId} data-testid="approvers">
      <h2 id={headingId}>Approvers</h2>
      <p className="muted">
        Who approves calls to this server&apos;s tools that need approval (marked in the Tools tab). With nobody named,
        the team&apos;s admins do. Nobody approves their own call.
      </p>
      <QueryState
        query={current}
        loading={<div className="skeleton" aria-busy="true" />}
        errorPrefix="Could not load the approvers: "
        isEmpty={() => list.length === 0}
        empty={<p data-testid="approvers-admins">The team&apos;s admins approve.</p>}
      >
        {() => (
          <ul className="stack" style={{ listStyle: "none", padding: 0 }} aria-label="Named approvers">
            {list.map((p) => (
              <li key={p.id} className="row" style={{ justifyContent: "space-between" }}>
                <span>
                  {p.name} <span className="muted small">{p.email}</span>
                </span>
                {chosen !== null && (
                  <button
                    type="button"
                    className="secondary small"
                    aria-label={`Remove ${p.name || p.email} from the approvers`}
                    onClick={() => setChosen(list.filter((x) => x.id !== p.id))}
                  >
                    Remove
                  </button>
                )}
              </li>
            ))}
          </ul>
        )}
      </QueryState>
      {chosen === null ? (
        <div className="row">
          <button type="button" className="secondary" onClick={() => setChosen(list)} disabled={current.isPending}>
            Change approvers
          </button>
        </div>
      ) : (
        <form
          className="stack"
          aria-label="Change approvers"
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate({ teamId, installationId, approverIds: chosen.map((p) => p.id) });
          }}
        >
          <div className="row" style={{ alignItems: "flex-end" }}>
            <label htmlFor={searchId} style={{ flex: 1 }}>
              Find a member
              <input
                id={searchId}
                type="search"
                value={search}
                placeholder="Name or email"
                onChange={(e) => setSearch(e.target.value)}
              />
            </label>
            <label style={{ flex: 1 }}>
              Member
              <select value={pick} onChange={(e) => setPick(e.target.value)} aria-label="Member to add">
                <option value="">{members.isPending ? "Loading…" : "Choose a member"}</option>
                {candidates.map((m) => (
                  <option key={m.user.id} value={m.user.id}>
                    {m.user.name} ({m.user.email})
                  </option>
                ))}
              </select>
            </label>
            <button
              type="button"
              className="secondary"
              disabled={!pick}
              onClick={() => {
                const m = candidates.find((c) => c.user.id === pick);
                if (m) setChosen([...chosen, { id: m.user.id, name: m.user.name, email: m.user.email }]);
                setPick("");
              }}
            >
              Add
            </button>
          </div>
          {chosen.length === 0 && <p className="muted">Saving with nobody named gives the decision to the admins.</p>}
          <FormActions mutation={save} label="Save approvers" pendingLabel="Saving…" onCancel={() => setChosen(null)} />
        </form>
      )}
    </section>
  );
}
