"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { errorMessage } from "~/lib/errors";
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
        {teams.isPending ? (
          <div className="stack" aria-busy="true">
            <div className="skeleton" />
            <div className="skeleton" />
          </div>
        ) : teams.isError ? (
          <p className="error" role="alert">
            Could not load your teams: {errorMessage(teams.error)}
          </p>
        ) : teams.data.length === 0 ? (
          <p className="empty">You are not in a team yet. Create one below, or open an invitation link.</p>
        ) : (
          <ul className="stack" style={{ listStyle: "none", padding: 0, margin: 0 }}>
            {teams.data.map((t) => (
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
        {create.isError && (
          <p className="error" role="alert">
            {errorMessage(create.error)}
          </p>
        )}
        <div>
          <button type="submit" disabled={create.isPending}>
            {create.isPending ? "Creating…" : "Create team"}
          </button>
        </div>
      </form>
    </div>
  );
}
