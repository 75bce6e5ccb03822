"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { TEAM_ROLES, type TeamRole } from "@switchboard/core/accounts";
import { ConfirmButton } from "~/components/confirm-button";
import { CopyButton } from "~/components/copy-button";
import { ResponsiveTable } from "~/components/ui/responsive-table";
import { useTRPC } from "~/trpc/react";
import { QueryState } from "~/components/ui/query-state";
import { FormError } from "~/components/ui/form-error";

export function IdentityView({ scimUrl }: { scimUrl: string }) {
  return (
    <div className="stack">
      <h1>Identity provider</h1>
      <p className="muted">
        Your company&apos;s identity provider can create, update, deactivate and delete accounts over SCIM, and its
        groups can decide who is in which team with which role. See <code>docs/scim.md</code> for the details.{" "}
        <Link href="/settings/deployment">Deployment settings</Link>
      </p>
      <ScimTokenSection scimUrl={scimUrl} />
      <MappingsSection />
    </div>
  );
}

function ScimTokenSection({ scimUrl }: { scimUrl: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const status = useQuery(trpc.identity.scimToken.queryOptions());
  const refresh = () => queryClient.invalidateQueries(trpc.identity.scimToken.pathFilter());
  const create = useMutation(trpc.identity.createScimToken.mutationOptions({ onSuccess: refresh }));
  const revoke = useMutation(
    trpc.identity.revokeScimToken.mutationOptions({
      onSuccess: () => {
        create.reset();
        return refresh();
      },
    }),
  );
  return (
    <section className="card stack" aria-labelledby="scim-heading">
      <h2 id="scim-heading">SCIM provisioning</h2>
      <p className="muted">
        Give the provider this endpoint and a token: <code style={{ overflowWrap: "anywhere" }}>{scimUrl}</code>.
        Deactivating a person there ends their sessions, access tokens and OAuth grants at once and stops their servers.
      </p>
      <QueryState
        query={status}
        loading={<div className="skeleton" aria-busy="true" />}
        errorPrefix="Could not load the SCIM token: "
        isEmpty={(token) => token === null}
        empty={
          <>
            <p className="empty">No SCIM token: the endpoint refuses every request.</p>
            <button type="button" disabled={create.isPending} onClick={() => create.mutate()}>
              {create.isPending ? "Creating…" : "Create SCIM token"}
            </button>
          </>
        }
      >
        {(token) =>
          token && (
            <>
              <p data-testid="scim-token-status">
                Token <code>{token.prefix}…</code> created {token.createdAt.toLocaleString()};{" "}
                {token.lastUsedAt ? `last used ${token.lastUsedAt.toLocaleString()}` : "not used yet"}.
              </p>
              <div className="row">
                <ConfirmButton
                  label="Rotate token"
                  title="Rotate the SCIM token?"
                  body="A new token replaces this one, which stops working at once: paste the new one into the identity provider, or provisioning stops."
                  confirmLabel="Rotate"
                  tone="primary"
                  disabled={create.isPending || revoke.isPending}
                  onConfirm={() => create.mutate()}
                />
                <ConfirmButton
                  label="Revoke token"
                  title="Revoke the SCIM token?"
                  body="The identity provider can no longer create, change or deactivate accounts until you create a new token. Accounts and teams stay as they are."
                  confirmLabel="Revoke"
                  disabled={create.isPending || revoke.isPending}
                  onConfirm={() => revoke.mutate()}
                />
              </div>
            </>
          )
        }
      </QueryState>
      {create.data && (
        <div className="stack" data-testid="new-scim-token">
          <strong>Copy this token now. It will not be shown again.</strong>
          <div className="row">
            <code className="block" style={{ flex: 1, overflowWrap: "anywhere" }}>
              {create.data.token}
            </code>
            <CopyButton value={create.data.token} label="Copy token" />
          </div>
        </div>
      )}
      {(create.isError || revoke.isError) && <FormError error={create.error ?? revoke.error} />}
    </section>
  );
}

const ROLE_LABEL: Record<TeamRole, string> = { owner: "Owner", admin: "Admin", member: "Member" };

function MappingsSection() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const mappings = useQuery(trpc.identity.groupMappings.queryOptions());
  const teams = useInfiniteQuery(
    trpc.deployment.teams.infiniteQueryOptions({ limit: 100 }, { getNextPageParam: (last) => last.nextCursor }),
  );
  const refresh = () => queryClient.invalidateQueries(trpc.identity.groupMappings.pathFilter());
  const [providerId, setProviderId] = useState("scim");
  const [groupName, setGroupName] = useState("");
  const [teamId, setTeamId] = useState("");
  const [role, setRole] = useState<TeamRole>("member");
  const add = useMutation(
    trpc.identity.addGroupMapping.mutationOptions({
      onSuccess: () => {
        setGroupName("");
        return refresh();
      },
    }),
  );
  const remove = useMutation(trpc.identity.removeGroupMapping.mutationOptions({ onSuccess: refresh }));
  const teamRows = teams.data?.pages.flatMap((p) => p.items) ?? [];
  const chosenTeam = teamRows.find((t) => t.id === teamId);
  return (
    <section className="card stack" aria-labelledby="mappings-heading">
      <h2 id="mappings-heading">Groups to teams</h2>
      <p className="muted">
        People in a mapped group join the team with the role you choose; in several groups of one team, they get the
        highest role. A team with at least one mapping follows the provider: whoever is in none of its groups leaves it,
        with their tokens and servers. Teams without mappings keep invitations and manual membership.
      </p>
      <ResponsiveTable
        label="Group mappings"
        columns={["Group", "Provider", "Team", "Role"]}
        actions
        query={mappings}
        rows={mappings.data}
        errorPrefix="Could not load the mappings: "
        empty="No mappings: every team's membership is managed by hand."
        actionError={remove.error}
        row={(m) => (
          <tr key={m.id} data-testid="group-mapping-row">
            <th scope="row">{m.groupName}</th>
            <td data-label="Provider">{m.providerId}</td>
            <td data-label="Team">{m.team.name}</td>
            <td data-label="Role">{m.role}</td>
            <td data-label="">
              <ConfirmButton
                label="Remove"
                triggerLabel={`Remove the mapping of ${m.groupName} to ${m.team.name}`}
                title={`Stop mapping ${m.groupName} to ${m.team.name}?`}
                body={
                  (mappings.data ?? []).filter((x) => x.team.id === m.team.id).length > 1
                    ? `Members of ${m.groupName} keep ${m.team.name} only through its other mapped groups; whoever is in none of them leaves the team, with their tokens and servers.`
                    : `${m.team.name} no longer follows the provider: its current members stay, and its membership is managed by hand again.`
                }
                confirmLabel="Remove mapping"
                disabled={remove.isPending}
                onConfirm={() => remove.mutate({ teamId: m.team.id, mappingId: m.id })}
              />
            </td>
          </tr>
        )}
      />
      <form
        className="stack"
        aria-label="Map a group to a team"
        // Adding goes through the confirmation below, which says what will happen.
        onSubmit={(e) => e.preventDefault()}
      >
        <div className="row" style={{ flexWrap: "wrap", alignItems: "flex-end" }}>
          <label>
            Provider
            <input
              required
              value={providerId}
              onChange={(e) => setProviderId(e.target.value)}
              aria-describedby="provider-help"
            />
          </label>
          <label style={{ flex: 1, minWidth: 180 }}>
            Group name
            <input
              required
              value={groupName}
              onChange={(e) => setGroupName(e.target.value)}
              placeholder="Engineering"
            />
          </label>
          <label>
            Team
            <select required value={teamId} onChange={(e) => setTeamId(e.target.value)} disabled={teams.isPending}>
              <option value="">{teams.isPending ? "Loading…" : "Choose a team"}</option>
              {teamRows.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name}
                </option>
              ))}
            </select>
          </label>
          <label>
            Role
            <select value={role} onChange={(e) => setRole(e.target.value as TeamRole)}>
              {TEAM_ROLES.map((r) => (
                <option key={r} value={r}>
                  {ROLE_LABEL[r]}
                </option>
              ))}
            </select>
          </label>
        </div>
        <p id="provider-help" className="muted">
          <code>scim</code> for groups the provider pushes over SCIM; an SSO provider&apos;s id for the groups it sends
          at sign-in.
        </p>
        <div>
          <ConfirmButton
            label={add.isPending ? "Adding…" : "Add mapping"}
            title={`Map ${groupName.trim() || "this group"} to ${chosenTeam?.name ?? "this team"}?`}
            body={
              chosenTeam && (mappings.data ?? []).some((m) => m.team.id === chosenTeam.id)
                ? `Everyone in ${groupName.trim()} joins ${chosenTeam.name} as ${role} (or keeps a higher role another of its groups gives).`
                : `Everyone in ${groupName.trim()} joins ${chosenTeam?.name ?? "the team"} as ${role}, and from now on the team follows the provider: a member in none of its mapped groups leaves it, with their tokens and servers, when the provider next reports their groups.`
            }
            confirmLabel="Add mapping"
            tone="primary"
            triggerClassName=""
            disabled={add.isPending || !groupName.trim() || !teamId || !providerId.trim()}
            onConfirm={() => add.mutate({ providerId, groupName, teamId, role })}
          />
        </div>
        {teams.isError && <FormError error={teams.error} prefix="Could not load the teams: " />}
        <FormError error={add.error} />
      </form>
    </section>
  );
}
