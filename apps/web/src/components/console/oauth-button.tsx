"use client";

import { useMutation } from "@tanstack/react-query";
import { useRef } from "react";
import { errorMessage } from "~/lib/errors";
import { useTRPC } from "~/trpc/react";

/**
 * Starts the member's OAuth authorization for their own instance: the server prepares the flow (PKCE, state,
 * registration) and answers the authorization server's URL; the browser goes there and comes back through
 * /api/oauth/callback to My servers. The server gives up on an upstream that does not answer (a readable
 * error); until then the member can cancel, and a start that answers after a cancel does not redirect.
 */
export function OAuthButton({
  teamId,
  instanceId,
  label,
  name,
}: {
  teamId: string;
  instanceId: string;
  label: string;
  name: string;
}) {
  const trpc = useTRPC();
  const attempt = useRef(0);
  const start = useMutation(trpc.oauth.start.mutationOptions());
  const begin = () => {
    const mine = ++attempt.current;
    start.mutate(
      { teamId, instanceId },
      {
        onSuccess: ({ authorizationUrl }) => {
          if (attempt.current === mine) window.location.assign(authorizationUrl);
        },
      },
    );
  };
  const cancel = () => {
    attempt.current += 1;
    start.reset();
  };
  const busy = start.isPending || start.isSuccess;
  return (
    <span className="stack" style={{ gap: ".25rem", minWidth: 0 }}>
      <span className="row">
        <button type="button" onClick={begin} disabled={busy} aria-label={`${label}: ${name}`}>
          {busy ? "Redirecting…" : label}
        </button>
        {start.isPending && (
          <button type="button" className="secondary small" onClick={cancel}>
            Cancel
          </button>
        )}
      </span>
      {start.isError && (
        <span className="error" role="alert">
          {errorMessage(start.error)}
        </span>
      )}
    </span>
  );
}
