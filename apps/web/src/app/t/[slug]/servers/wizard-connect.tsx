"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { OAuthButton } from "~/components/console/oauth-button";
import { useTRPC } from "~/trpc/react";
import { FormError } from "~/components/ui/form-error";

/**
 * The wizard's last step for an OAuth server: waits until the worker has created the admin's own instance (live
 * updates refetch it; a poll covers a missed event) and offers the Connect button for it.
 */
export function ConnectOwnInstance({
  teamId,
  teamSlug,
  installation,
  onDone,
}: {
  teamId: string;
  teamSlug: string;
  installation: { id: string; name: string };
  onDone: () => void;
}) {
  const trpc = useTRPC();
  const mine = useQuery(
    trpc.instance.mineOf.queryOptions(
      { teamId, installationId: installation.id },
      { refetchInterval: (q) => (q.state.data?.instance ? false : 1_000) },
    ),
  );
  const instance = mine.data?.instance;
  return (
    <div className="stack" data-testid="wizard-connect">
      <p role="status">
        {installation.name} is installed. It signs in with OAuth, so every member connects their own account.
      </p>
      {mine.isError ? (
        <FormError error={mine.error} />
      ) : !instance ? (
        <p className="muted" aria-busy="true">
          Creating your instance…
        </p>
      ) : instance.status === "awaiting_user_config" ? (
        <p>
          Fill in your personal settings on <Link href={`/t/${teamSlug}/my-servers`}>My servers</Link> first, then
          connect your account there.
        </p>
      ) : (
        <div className="row">
          <OAuthButton teamId={teamId} instanceId={instance.id} name={installation.name} label="Connect your account" />
        </div>
      )}
      <p className="muted">
        Members connect their own accounts from <Link href={`/t/${teamSlug}/my-servers`}>My servers</Link>, where the
        server shows a Connect button until they do.
      </p>
      <div className="row" style={{ justifyContent: "flex-end" }}>
        <button type="button" className="secondary" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}
