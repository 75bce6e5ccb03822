"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { FormError } from "~/components/ui/form-error";
import { QueryState } from "~/components/ui/query-state";
import { useTRPC } from "~/trpc/react";

export function TeamList() {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const teams = useQuery(trpc.team.list.queryOptions());
  const [name, setName] = useState("");
  const create = useMutation(
    trpc.team.create.mutationOptions({
      onSuccess: async (team) => {
        await queryClient.invalidateQueries(trpc.team.list.pathFilter());
        router.push(`/t/${team.slug}`);
      },
    }),
  );

  return (
    <div className="stack">
      <div className="card">
        <h1>Your teams</h1>
        <QueryState
          query={teams}
          errorPrefix="Could not load your teams: "
          isEmpty={(list) => list.length === 0}
          empty={<p className="empty">You are not in a team yet. Create one below, or open an invitation link.</p>}
        >
          {(list) => (
            <ul className="stack" style={{ listStyle: "none", padding: 0, margin: 0 }}>
              {list.map((t) => (
                <li key={t.id} className="row" style={{ justifyContent: "space-between" }}>
                  <Link href={`/t/${t.slug}`}>{t.name}</Link>
                  <span className="muted">
                    {t.role} · {t.memberCount} member{t.memberCount === 1 ? "" : "s"} · {t.installationCount} server
                    {t.installationCount === 1 ? "" : "s"}
                  </span>
                </li>
              ))}
            </ul>
          )}
        </QueryState>
      </div>
      <form
        className="card stack"
        aria-label="Create a team"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({ name });
        }}
      >
        <h2>Create a team</h2>
        <label>
          Team name
          <input
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            minLength={2}
            maxLength={60}
            placeholder="Acme Platform"
          />
        </label>
        <FormError error={create.error} />
        <div>
          <button type="submit" disabled={create.isPending}>
            {create.isPending ? "Creating…" : "Create team"}
          </button>
        </div>
      </form>
    </div>
  );
}
