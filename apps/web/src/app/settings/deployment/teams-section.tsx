"use client";

import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { ConfirmButton } from "~/components/confirm-button";
import { ResponsiveTable } from "~/components/ui/responsive-table";
import { useTRPC } from "~/trpc/react";
import { Loading } from "./section-parts";
import { LoadMore } from "~/components/ui/load-more";

/** Which teams may run stdio servers: allowed or withdrawn, a team at a time. */
export function TeamsSection() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const teams = useInfiniteQuery(
    trpc.deployment.teams.infiniteQueryOptions({ limit: 50 }, { getNextPageParam: (last) => last.nextCursor }),
  );
  const toggle = useMutation(
    trpc.deployment.setTeamStdio.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.deployment.teams.pathFilter()),
    }),
  );
  const rows = teams.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <section className="card stack" aria-labelledby="teams-heading">
      <h2 id="teams-heading">Teams allowed to run stdio servers</h2>
      <p className="muted">
        New teams may not. Withdrawing the permission stops the team&apos;s stdio servers; remote servers are not
        affected.
      </p>
      <ResponsiveTable
        label="Teams"
        columns={["Team", "Members", "Stdio servers installed", "Stdio"]}
        actions
        query={teams}
        rows={rows}
        empty="No teams yet."
        actionError={toggle.error}
        errorPrefix="Could not load the teams: "
        loading={<Loading />}
        row={(t) => (
          <tr key={t.id} data-testid="deployment-team-row">
            <th scope="row">
              {t.name} <span className="muted">/{t.slug}</span>
              {!t.hasOwner && (
                <>
                  {" "}
                  <span className="badge" title="The identity provider removed its last owner and nobody was left">
                    no owner
                  </span>
                </>
              )}
            </th>
            <td data-label="Members">{t.memberCount}</td>
            <td data-label="Stdio servers installed">{t.stdioInstallationCount}</td>
            <td data-label="Stdio">
              <span className="badge">{t.stdioAllowed ? "allowed" : "not allowed"}</span>
            </td>
            <td data-label="">
              {!t.stdioAllowed ? (
                <button
                  type="button"
                  className="secondary"
                  disabled={toggle.isPending}
                  onClick={() => toggle.mutate({ teamId: t.id, allowed: true })}
                >
                  Allow stdio for {t.name}
                </button>
              ) : (
                <ConfirmButton
                  label={`Withdraw stdio from ${t.name}`}
                  title={`Withdraw stdio from ${t.name}?`}
                  body={
                    t.stdioInstallationCount > 0
                      ? `Its ${t.stdioInstallationCount} stdio server(s) stop and will not start again until you allow the team again.`
                      : "The team will not be able to add or install stdio servers."
                  }
                  confirmLabel="Withdraw"
                  disabled={toggle.isPending}
                  onConfirm={() => toggle.mutate({ teamId: t.id, allowed: false })}
                />
              )}
            </td>
          </tr>
        )}
      />
      <LoadMore query={teams} />
    </section>
  );
}
