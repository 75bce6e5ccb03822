"use client";

import { QuotaRefusalsSection } from "~/components/console/quota-refusals-section";
import { QuotasSection } from "~/components/console/quotas-section";
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ConfirmButton } from "~/components/confirm-button";
import { CopyButton } from "~/components/copy-button";
import { useTRPC } from "~/trpc/react";
import { When, formatAgo } from "~/components/when";
import { useToast } from "~/components/ui/toast";
import { ResponsiveTable } from "~/components/ui/responsive-table";
import { SearchBox, useUrlSearch } from "~/components/ui/search-box";
import { RoleSelect } from "./role-select";
import { LoadMore } from "~/components/ui/load-more";
import { FormError } from "~/components/ui/form-error";

export function MembersView({
  teamId,
  teamSlug,
  isAdmin,
  isOwner,
  currentUserId,
}: {
  teamId: string;
  teamSlug: string;
  isAdmin: boolean;
  isOwner: boolean;
  currentUserId: string;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { text, setText, search } = useUrlSearch();
  const members = useInfiniteQuery(
    trpc.team.members.infiniteQueryOptions(
      { teamId, limit: 25, ...(search ? { search } : {}) },
      { getNextPageParam: (last) => last.nextCursor, placeholderData: (previous) => previous },
    ),
  );
  const refresh = () => queryClient.invalidateQueries(trpc.team.pathFilter());
  const changeRole = useMutation(trpc.team.changeRole.mutationOptions({ onSuccess: refresh }));
  const toast = useToast();
  const remove = useMutation(trpc.team.removeMember.mutationOptions({ onSuccess: refresh }));
  const rows = members.data?.pages.flatMap((p) => p.items) ?? [];
  const actionError = changeRole.error ?? remove.error;

  return (
    <div className="stack">
      <h1>Members</h1>
      {isAdmin && <InviteForm teamId={teamId} />}
      <section className="card" aria-labelledby="members-heading">
        <div className="row" style={{ justifyContent: "space-between", alignItems: "flex-end" }}>
          <h2 id="members-heading">Team members</h2>
          <SearchBox label="Search members" placeholder="Name or email" text={text} setText={setText} />
        </div>
        <ResponsiveTable
          label="Team members"
          columns={["Name", "Email", "Role", "Joined", "Last active"]}
          actions={isAdmin}
          query={members}
          rows={rows}
          empty={search ? `No member's name or email contains “${search}”.` : "No members yet."}
          actionError={actionError}
          errorPrefix="Could not load members: "
          loading={
            <div className="stack" aria-busy="true">
              <div className="skeleton" />
              <div className="skeleton" />
            </div>
          }
          row={(m) => (
            <tr key={m.id} data-testid="member-row">
              <th scope="row">
                {m.user.name}
                {m.user.id === currentUserId && <span className="muted"> (you)</span>}
              </th>
              <td data-label="Email">{m.user.email}</td>
              <td data-label="Role">
                {isAdmin && m.user.id !== currentUserId ? (
                  <RoleSelect
                    email={m.user.email}
                    name={m.user.name}
                    role={m.role as "owner" | "admin" | "member"}
                    isOwner={isOwner}
                    disabled={changeRole.isPending}
                    onChange={(role) =>
                      changeRole.mutate(
                        { teamId, memberId: m.id, role },
                        {
                          onSuccess: () => toast(`${m.user.name} is now ${role === "admin" ? "an" : "a"} ${role}.`),
                        },
                      )
                    }
                  />
                ) : (
                  <span className="badge">{m.role}</span>
                )}
              </td>
              <td data-label="Joined">
                <When date={m.joinedAt} withTime={false} />
              </td>
              <td data-label="Last active" title="Their last call through the gateway to one of this team's servers">
                {m.lastActiveAt ? (
                  <time dateTime={m.lastActiveAt.toISOString()} suppressHydrationWarning>
                    {formatAgo(m.lastActiveAt)}
                  </time>
                ) : (
                  <span className="muted">no calls yet</span>
                )}
              </td>
              {isAdmin && (
                <td data-label="">
                  {m.user.id !== currentUserId && (
                    <ConfirmButton
                      label="Remove"
                      title={`Remove ${m.user.email}?`}
                      body="They lose access to the team at once. Their server instances, tokens and OAuth grants for this team are deleted."
                      confirmLabel="Remove member"
                      disabled={remove.isPending}
                      triggerLabel={`Remove ${m.user.email}`}
                      onConfirm={() =>
                        remove.mutate(
                          { teamId, memberId: m.id },
                          { onSuccess: () => toast(`${m.user.name} was removed from the team.`) },
                        )
                      }
                    />
                  )}
                </td>
              )}
            </tr>
          )}
        />
        <LoadMore query={members} />
      </section>
      {isAdmin && <PendingInvitations teamId={teamId} />}
      {isAdmin && <QuotasSection teamId={teamId} installationId={null} />}
      {isAdmin && <QuotaRefusalsSection teamId={teamId} installationId={null} />}
      <LeaveOrDelete teamId={teamId} teamSlug={teamSlug} isOwner={isOwner} />
    </div>
  );
}

function InviteForm({ teamId }: { teamId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<"member" | "admin">("member");
  const invite = useMutation(
    trpc.team.invite.mutationOptions({
      onSuccess: () => {
        setEmail("");
        void queryClient.invalidateQueries(trpc.team.invitations.pathFilter());
      },
    }),
  );
  return (
    <form
      className="card stack"
      aria-label="Invite a member"
      onSubmit={(e) => {
        e.preventDefault();
        invite.mutate({ teamId, email, role });
      }}
    >
      <h2>Invite a member</h2>
      <div className="row" style={{ alignItems: "flex-end" }}>
        <label style={{ flex: 1 }}>
          Email
          <input
            type="email"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            placeholder="teammate@example.com"
          />
        </label>
        <label>
          Role
          <select value={role} onChange={(e) => setRole(e.target.value as "member" | "admin")}>
            <option value="member">member</option>
            <option value="admin">admin</option>
          </select>
        </label>
        <button type="submit" disabled={invite.isPending}>
          {invite.isPending ? "Creating…" : "Create invitation link"}
        </button>
      </div>
      <FormError error={invite.error} />
      {invite.data && (
        <div className="stack" data-testid="invitation-link">
          <span className="muted">Send this link to {invite.data.email}. It works once and expires in 7 days.</span>
          <div className="row">
            <code className="block" style={{ flex: 1 }}>
              {invite.data.url}
            </code>
            <CopyButton value={invite.data.url} label="Copy link" />
          </div>
        </div>
      )}
    </form>
  );
}

function PendingInvitations({ teamId }: { teamId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const invitations = useQuery(trpc.team.invitations.queryOptions({ teamId }));
  const cancel = useMutation(
    trpc.team.cancelInvitation.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.team.invitations.pathFilter()),
    }),
  );
  return (
    <section className="card" aria-labelledby="invitations-heading">
      <h2 id="invitations-heading">Pending invitations</h2>
      <ResponsiveTable
        label="Pending invitations"
        columns={["Email", "Role", "Expires"]}
        actions
        query={invitations}
        rows={invitations.data}
        empty="No pending invitations."
        actionError={cancel.error}
        row={(i) => (
          <tr key={i.id} data-testid="invitation-row">
            <th scope="row">{i.email}</th>
            <td data-label="Role">{i.role}</td>
            <td data-label="Expires">
              <When date={i.expiresAt} />
            </td>
            <td data-label="" className="row">
              <CopyButton value={i.url} label="Copy link" />
              <ConfirmButton
                label="Cancel"
                title={`Cancel the invitation for ${i.email}?`}
                body="The link stops working."
                confirmLabel="Cancel invitation"
                onConfirm={() => cancel.mutate({ teamId, invitationId: i.id })}
              />
            </td>
          </tr>
        )}
      />
    </section>
  );
}

/** Leaving (anyone but the last owner) and deleting the team (owners): both end access at once. */
function LeaveOrDelete({ teamId, teamSlug, isOwner }: { teamId: string; teamSlug: string; isOwner: boolean }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [confirmSlug, setConfirmSlug] = useState("");
  const gone = () => {
    void queryClient.invalidateQueries(trpc.team.pathFilter());
    router.push("/teams");
    router.refresh();
  };
  const leave = useMutation(trpc.team.leave.mutationOptions({ onSuccess: gone }));
  const remove = useMutation(trpc.team.delete.mutationOptions({ onSuccess: gone }));
  return (
    <section className="card stack" aria-labelledby="leave-heading">
      <h2 id="leave-heading">Leave or delete the team</h2>
      <FormError error={leave.error} />
      <div>
        <ConfirmButton
          label="Leave team"
          title="Leave this team?"
          body="You lose access at once. Your server instances and access tokens for this team are deleted."
          confirmLabel="Leave team"
          disabled={leave.isPending}
          onConfirm={() => leave.mutate({ teamId })}
        />
      </div>
      {isOwner && (
        <form
          className="stack"
          aria-label="Delete the team"
          onSubmit={(e) => {
            e.preventDefault();
            remove.mutate({ teamId, confirmSlug });
          }}
        >
          <label>
            Type <code>{teamSlug}</code> to delete the team, its servers and every member&apos;s access
            <input value={confirmSlug} onChange={(e) => setConfirmSlug(e.target.value)} autoComplete="off" />
          </label>
          <FormError error={remove.error} />
          <div>
            <button type="submit" className="danger" disabled={remove.isPending || confirmSlug !== teamSlug}>
              {remove.isPending ? "Deleting…" : "Delete team"}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
