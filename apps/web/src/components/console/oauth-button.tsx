"use client";

import { useMutation } from "@tanstack/react-query";
import { errorMessage } from "~/lib/errors";
import { useTRPC } from "~/trpc/react";

/**
 * Starts the member's OAuth authorization for their own instance: the server prepares the flow (PKCE, state,
 * registration) and answers the authorization server's URL; the browser goes there and comes back through
 * /api/oauth/callback to My servers.
 */
export function OAuthButton({ teamId, instanceId, label, name }: { teamId: string; instanceId: string; label: string; name: string }) {
  const trpc = useTRPC();
  const start = useMutation(trpc.oauth.start.mutationOptions({ onSuccess: ({ authorizationUrl }) => window.location.assign(authorizationUrl) }));
  return (
    <span className="stack" style={{ gap: ".25rem" }}>
      <button type="button" onClick={() => start.mutate({ teamId, instanceId })} disabled={start.isPending || start.isSuccess} aria-label={`${label}: ${name}`}>
        {start.isPending || start.isSuccess ? "Redirecting…" : label}
      </button>
      {start.isError && <span className="error" role="alert">{errorMessage(start.error)}</span>}
    </span>
  );
}
