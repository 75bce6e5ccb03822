"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmButton } from "~/components/confirm-button";
import { OAuthRedirectUri } from "~/components/console/oauth-redirect-uri";
import { Field } from "~/components/field";
import type { RouterOutputs } from "~/trpc/types";
import { useTRPC } from "~/trpc/react";
import { FormError } from "~/components/ui/form-error";
import { QueryState } from "~/components/ui/query-state";

type Client = RouterOutputs["installation"]["oauthClient"];

/**
 * The admin's pre-registered OAuth client for an OAuth server: client ID, a write-only secret, the redirect URI to
 * register at the provider. Without one, members' flows register a client dynamically (RFC 7591).
 */
export function OAuthClientSection({ teamId, installationId }: { teamId: string; installationId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const current = useQuery(trpc.installation.oauthClient.queryOptions({ teamId, installationId }));
  const save = useMutation(
    trpc.installation.setOAuthClient.mutationOptions({
      onSuccess: (data) =>
        queryClient.setQueryData(trpc.installation.oauthClient.queryKey({ teamId, installationId }), data),
    }),
  );

  return (
    <section className="card stack" aria-labelledby="oauth-client-h">
      <h2 id="oauth-client-h">OAuth client</h2>
      <p className="muted">
        If the provider does not allow dynamic client registration, register a client there with the redirect URI below
        and enter its ID and secret. Members who already connected keep their tokens until they fail; then they
        re-authenticate with this client.
      </p>
      <OAuthRedirectUri teamId={teamId} />
      <QueryState query={current} loading={<div className="skeleton" aria-busy="true" />}>
        {(data) => (
          <ClientForm
            key={`${data.clientId}:${data.secretSet}`}
            current={data}
            pending={save.isPending}
            onSave={(clientId, clientSecret) => save.mutate({ teamId, installationId, clientId, clientSecret })}
            onClear={() => save.mutate({ teamId, installationId, clientId: null })}
          />
        )}
      </QueryState>
      <FormError error={save.error} />
      {save.isSuccess && (
        <p className="muted" role="status">
          {save.data.clientId
            ? "Saved. New authorizations use this client."
            : "Cleared. New authorizations register a client dynamically."}
        </p>
      )}
    </section>
  );
}

function ClientForm({
  current,
  pending,
  onSave,
  onClear,
}: {
  current: Client;
  pending: boolean;
  onSave: (clientId: string, secret: string) => void;
  onClear: () => void;
}) {
  const [clientId, setClientId] = useState(current.clientId ?? "");
  const [secret, setSecret] = useState("");
  const [touched, setTouched] = useState(false);
  const sameClient = current.clientId !== null && clientId.trim() === current.clientId;
  const secretHint =
    sameClient && current.secretSet ? "•••••• — leave empty to keep" : "leave empty for a public client";
  return (
    <form
      className="stack"
      aria-label="OAuth client"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        setTouched(true);
        if (clientId.trim()) onSave(clientId.trim(), secret);
      }}
    >
      <p className="small" data-testid="oauth-client-mode">
        {current.clientId ? (
          <>
            Using the pre-registered client <code>{current.clientId}</code>
            {current.secretSet ? " with a secret" : " (public, no secret)"}.
          </>
        ) : (
          "Using dynamic client registration."
        )}
      </p>
      <Field label="Client ID" error={touched && !clientId.trim() ? "Enter the client ID." : undefined}>
        {(p) => <input {...p} value={clientId} autoComplete="off" onChange={(e) => setClientId(e.target.value)} />}
      </Field>
      <Field label="Client secret">
        {(p) => (
          <>
            <input
              {...p}
              type="password"
              autoComplete="new-password"
              value={secret}
              placeholder={secretHint}
              onChange={(e) => setSecret(e.target.value)}
            />
            <span className="muted small">Stored encrypted and never shown again in clear.</span>
          </>
        )}
      </Field>
      <div className="row">
        <button type="submit" disabled={pending}>
          {pending ? "Saving…" : "Save OAuth client"}
        </button>
        {current.clientId && (
          <ConfirmButton
            label="Clear OAuth client"
            title="Clear the OAuth client?"
            body="New authorizations will register a client dynamically; the provider must allow it. Members already connected keep their tokens until they fail."
            confirmLabel="Clear"
            disabled={pending}
            onConfirm={onClear}
          />
        )}
      </div>
    </form>
  );
}
