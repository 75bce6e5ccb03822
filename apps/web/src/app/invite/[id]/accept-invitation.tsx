"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { ResendConfirmation } from "~/app/account/account-forms";
import { useTRPC } from "~/trpc/react";
import { FormError } from "~/components/ui/form-error";

export function AcceptInvitation({ invitationId }: { invitationId: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const me = useQuery(trpc.me.queryOptions());
  const invitation = useQuery(trpc.invitation.get.queryOptions({ invitationId }));
  const accept = useMutation(
    trpc.invitation.accept.mutationOptions({ onSuccess: (r) => router.push(`/t/${r.teamSlug}`) }),
  );
  const here = `/invite/${invitationId}`;

  if (invitation.isPending || me.isPending) {
    return (
      <div className="centered card" aria-busy="true">
        <div className="skeleton" />
      </div>
    );
  }
  if (invitation.isError) {
    return (
      <div className="centered card stack">
        <h1>Invitation not found</h1>
        <FormError error={invitation.error} />
        <Link href="/teams">Go to your teams</Link>
      </div>
    );
  }
  const inv = invitation.data;
  return (
    <div className="centered card stack">
      <h1>Join {inv.teamName}</h1>
      <p>
        {inv.invitedBy} invited <strong>{inv.email}</strong> to join <strong>{inv.teamName}</strong> as {inv.role}.
      </p>
      {inv.status !== "pending" ? (
        <p className="error" role="alert">
          This invitation is {inv.status}. Ask a team admin for a new link.
        </p>
      ) : !me.data ? (
        <div className="row">
          <Link
            className="button"
            href={`/sign-up?next=${encodeURIComponent(here)}&email=${encodeURIComponent(inv.email)}`}
          >
            Create an account
          </Link>
          <Link
            className="button secondary"
            href={`/sign-in?next=${encodeURIComponent(here)}&email=${encodeURIComponent(inv.email)}`}
          >
            Sign in
          </Link>
        </div>
      ) : !inv.forYou ? (
        <p className="error" role="alert">
          You are signed in as {me.data.email}, but this invitation is for {inv.email}. Sign in with that address to
          accept it.
        </p>
      ) : !me.data.emailVerified ? (
        <div className="stack" data-testid="confirm-email">
          <p className="error" role="alert">
            Confirm your email address first: open the link we sent to {inv.email}, then come back to this page.
          </p>
          <ResendConfirmation email={inv.email} callbackURL={here} />
        </div>
      ) : (
        <>
          <FormError error={accept.error} />
          <div>
            <button type="button" onClick={() => accept.mutate({ invitationId })} disabled={accept.isPending}>
              {accept.isPending ? "Joining…" : `Accept and join ${inv.teamName}`}
            </button>
          </div>
        </>
      )}
    </div>
  );
}
