"use client";

import { useQuery } from "@tanstack/react-query";
import { CopyButton } from "~/components/copy-button";
import { useTRPC } from "~/trpc/react";

/** The callback URL an admin registers at the provider for a pre-registered client (APP_URL, not this tab's origin). */
export function OAuthRedirectUri({ teamId }: { teamId: string }) {
  const trpc = useTRPC();
  const uri = useQuery(trpc.oauth.redirectUri.queryOptions({ teamId }, { staleTime: Number.POSITIVE_INFINITY }));
  return (
    <div className="stack" style={{ gap: ".25rem" }}>
      <span className="small">Redirect URI to register at the provider</span>
      <div className="row">
        {uri.data ? (
          <code data-testid="oauth-redirect-uri">{uri.data.redirectUri}</code>
        ) : (
          <span className="skeleton" aria-busy="true" style={{ width: "20rem" }} />
        )}
        {uri.data && <CopyButton value={uri.data.redirectUri} label="Copy redirect URI" />}
      </div>
    </div>
  );
}
