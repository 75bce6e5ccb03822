"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmButton } from "~/components/confirm-button";
import { CopyButton } from "~/components/copy-button";
import { FormActions } from "~/components/ui/form-actions";
import { useTRPC } from "~/trpc/react";
import type { RouterOutputs } from "~/trpc/types";
import { QueryState } from "~/components/ui/query-state";
import { FormError } from "~/components/ui/form-error";

type Provider = RouterOutputs["sso"]["providers"][number];
type TestResult = RouterOutputs["sso"]["testProvider"];

/** Single sign-on providers (OIDC, SAML 2.0): add, test, edit, SSO-only for their domains, remove. */
export function SsoSection() {
  const trpc = useTRPC();
  const providers = useQuery(trpc.sso.providers.queryOptions());
  const [adding, setAdding] = useState(false);
  return (
    <section className="card stack" aria-labelledby="sso-heading">
      <h2 id="sso-heading">Single sign-on</h2>
      <p className="muted">
        People sign in with their company&apos;s identity provider (OIDC or SAML 2.0) when their email domain belongs to
        one; their account is created at their first sign-in. Marked &quot;SSO only&quot;, a provider is the only way in
        for its domains: passwords and password resets are refused for them.
      </p>
      <QueryState
        query={providers}
        errorPrefix="Could not load the providers: "
        isEmpty={(list) => list.length === 0}
        empty={<p data-testid="sso-empty">No identity provider yet: everyone signs in with a password.</p>}
      >
        {(list) => (
          <ul className="stack" style={{ listStyle: "none", padding: 0 }} data-testid="sso-providers">
            {list.map((p) => (
              <ProviderRow key={p.id} provider={p} />
            ))}
          </ul>
        )}
      </QueryState>
      {adding ? (
        <AddProviderForm onDone={() => setAdding(false)} />
      ) : (
        <button type="button" className="secondary" onClick={() => setAdding(true)}>
          Add an identity provider
        </button>
      )}
    </section>
  );
}

function useStore() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries(trpc.sso.providers.pathFilter());
}

function ProviderRow({ provider: p }: { provider: Provider }) {
  const trpc = useTRPC();
  const refresh = useStore();
  const [result, setResult] = useState<TestResult | null>(null);
  const [editing, setEditing] = useState(false);
  const test = useMutation(trpc.sso.testProvider.mutationOptions({ onSuccess: setResult }));
  const update = useMutation(trpc.sso.updateProvider.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(trpc.sso.removeProvider.mutationOptions({ onSuccess: refresh }));
  const urls =
    p.protocol === "oidc"
      ? [["Redirect URI", p.oidcRedirectUri]]
      : [
          ["ACS URL", p.samlAcsUrl],
          ["Entity ID (audience)", p.samlEntityId],
          ["SP metadata", p.samlMetadataUrl],
        ];
  return (
    <li className="card stack" data-testid={`sso-provider-${p.providerId}`}>
      <strong>
        {p.name} <span className="muted">({p.protocol === "oidc" ? "OIDC" : "SAML 2.0"})</span>
      </strong>
      <span>
        Domains: {p.domains.join(", ")} · {p.ssoOnly ? "SSO only" : "passwords still allowed"}
      </span>
      <span className="muted" style={{ overflowWrap: "anywhere" }}>
        {p.protocol === "oidc" ? `Issuer ${p.issuer}, client ${p.clientId ?? "?"}` : `Provider id ${p.providerId}`}
      </span>
      <dl className="stack" style={{ margin: 0 }}>
        {urls.map(([label, url]) => (
          <div key={label}>
            <dt className="muted">{label} (register it at the provider)</dt>
            <dd style={{ margin: 0, overflowWrap: "anywhere" }}>
              <code>{url}</code> <CopyButton value={url!} label={`Copy ${label}`} />
            </dd>
          </div>
        ))}
      </dl>
      {editing && <EditProviderForm provider={p} onDone={() => setEditing(false)} />}
      <div className="row" style={{ flexWrap: "wrap", gap: 8 }}>
        <button type="button" className="secondary" disabled={test.isPending} onClick={() => test.mutate({ id: p.id })}>
          {test.isPending ? "Testing…" : "Test"}
        </button>
        {!editing && (
          <button type="button" className="secondary" aria-label={`Edit ${p.name}`} onClick={() => setEditing(true)}>
            Edit
          </button>
        )}
        {p.ssoOnly ? (
          <button
            type="button"
            className="secondary"
            disabled={update.isPending}
            onClick={() => update.mutate({ id: p.id, ssoOnly: false })}
          >
            Allow passwords again
          </button>
        ) : (
          <ConfirmButton
            label="Make SSO the only way in"
            title={`Only ${p.name} for ${p.domains.join(", ")}?`}
            body={`People with an address at ${p.domains.join(", ")} will no longer sign in, sign up or reset a password with a password; they sign in through ${p.name}. Existing accounts are linked at their next sign-in.`}
            confirmLabel="Make SSO only"
            tone="primary"
            disabled={update.isPending}
            onConfirm={() => update.mutate({ id: p.id, ssoOnly: true })}
          />
        )}
        <ConfirmButton
          label="Remove"
          triggerLabel={`Remove ${p.name}`}
          title={`Remove ${p.name}?`}
          body={`Nobody will sign in through ${p.name} any more; people at ${p.domains.join(", ")} keep their accounts and sign in with a password (they may need to reset it).`}
          confirmLabel="Remove provider"
          disabled={remove.isPending}
          onConfirm={() => remove.mutate({ id: p.id })}
        />
      </div>
      {result && (
        <div role="status" data-testid="sso-test-result">
          <p className={result.usable ? undefined : "error"}>{result.sentence}</p>
          {result.detail && (
            <details>
              <summary>Details</summary>
              <code style={{ overflowWrap: "anywhere" }}>{result.detail}</code>
            </details>
          )}
        </div>
      )}
      {[test, update, remove].map((m, i) => (m.isError ? <FormError key={i} error={m.error} /> : null))}
    </li>
  );
}

/** Name, domains and (OIDC) the client: the secret is write-only, left empty it stays as stored. */
function EditProviderForm({ provider: p, onDone }: { provider: Provider; onDone: () => void }) {
  const trpc = useTRPC();
  const refresh = useStore();
  const update = useMutation(
    trpc.sso.updateProvider.mutationOptions({
      onSuccess: async () => {
        await refresh();
        onDone();
      },
    }),
  );
  function onSubmit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const s = (k: string) => String(f.get(k) ?? "").trim();
    update.mutate({
      id: p.id,
      name: s("name"),
      domains: s("domains"),
      ...(p.protocol === "oidc" ? { oidcClientId: s("clientId") } : {}),
      ...(s("clientSecret") ? { oidcClientSecret: s("clientSecret") } : {}),
    });
  }
  return (
    <form className="stack" onSubmit={onSubmit} aria-label={`Edit ${p.name}`}>
      <label>
        Name shown to people
        <input name="name" required maxLength={80} defaultValue={p.name} />
      </label>
      <label>
        Email domains it owns (comma-separated)
        <input name="domains" required defaultValue={p.domains.join(", ")} />
      </label>
      {p.protocol === "oidc" && (
        <>
          <label>
            Client id
            <input name="clientId" required autoComplete="off" defaultValue={p.clientId ?? ""} />
          </label>
          <label>
            New client secret (leave empty to keep the stored one)
            <input name="clientSecret" type="password" autoComplete="new-password" />
          </label>
        </>
      )}
      <FormActions mutation={update} label="Save changes" pendingLabel="Saving…" onCancel={onDone} />
    </form>
  );
}

function AddProviderForm({ onDone }: { onDone: () => void }) {
  const trpc = useTRPC();
  const refresh = useStore();
  const [protocol, setProtocol] = useState<"oidc" | "saml">("oidc");
  const add = useMutation(
    trpc.sso.addProvider.mutationOptions({
      onSuccess: async () => {
        await refresh();
        onDone();
      },
    }),
  );
  function onSubmit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const s = (k: string) => String(f.get(k) ?? "").trim();
    const common = {
      name: s("name"),
      providerId: s("providerId"),
      domains: s("domains"),
      ssoOnly: f.get("ssoOnly") === "on",
    };
    if (protocol === "oidc")
      add.mutate({
        protocol,
        ...common,
        issuer: s("issuer"),
        oidcClientId: s("clientId"),
        oidcClientSecret: s("clientSecret"),
      });
    else
      add.mutate({
        protocol,
        ...common,
        ...(s("metadataUrl") ? { metadataUrl: s("metadataUrl") } : {}),
        ...(s("metadataXml") ? { metadataXml: s("metadataXml") } : {}),
        ...(s("entityId") ? { entityId: s("entityId") } : {}),
        ...(s("ssoUrl") ? { ssoUrl: s("ssoUrl") } : {}),
        ...(s("certificate") ? { certificate: s("certificate") } : {}),
      });
  }
  return (
    <form className="stack" onSubmit={onSubmit} aria-label="Add an identity provider">
      <fieldset className="row" style={{ gap: 16, border: 0, padding: 0 }}>
        <legend>Protocol</legend>
        <label>
          <input type="radio" name="protocol" checked={protocol === "oidc"} onChange={() => setProtocol("oidc")} />{" "}
          OpenID Connect
        </label>
        <label>
          <input type="radio" name="protocol" checked={protocol === "saml"} onChange={() => setProtocol("saml")} /> SAML
          2.0
        </label>
      </fieldset>
      <label>
        Name shown to people
        <input name="name" required maxLength={80} placeholder="Acme Okta" />
      </label>
      <label>
        Provider id (in the callback URLs; lower-case letters, digits, dashes)
        <input name="providerId" required pattern="[a-z0-9][a-z0-9\-]{1,39}" placeholder="acme-okta" />
      </label>
      <label>
        Email domains it owns (comma-separated)
        <input name="domains" required placeholder="acme.com, acme.co.uk" />
      </label>
      {protocol === "oidc" ? (
        <>
          <label>
            Issuer URL (its discovery document is read from /.well-known/openid-configuration)
            <input name="issuer" type="url" required placeholder="https://acme.okta.com" />
          </label>
          <label>
            Client id
            <input name="clientId" required autoComplete="off" />
          </label>
          <label>
            Client secret (stored encrypted, never shown again)
            <input name="clientSecret" type="password" required autoComplete="new-password" />
          </label>
        </>
      ) : (
        <>
          <label>
            IdP metadata URL
            <input name="metadataUrl" type="url" placeholder="https://login.example.com/federationmetadata.xml" />
          </label>
          <label>
            or the IdP metadata XML
            <textarea name="metadataXml" rows={4} />
          </label>
          <details>
            <summary>or its entity ID, sign-in URL and certificate</summary>
            <div className="stack">
              <label>
                IdP entity ID
                <input name="entityId" />
              </label>
              <label>
                IdP sign-in URL (HTTP-Redirect)
                <input name="ssoUrl" type="url" />
              </label>
              <label>
                IdP signing certificate (PEM)
                <textarea name="certificate" rows={4} />
              </label>
            </div>
          </details>
        </>
      )}
      <label>
        <input type="checkbox" name="ssoOnly" /> SSO only: refuse passwords for these domains
      </label>
      <FormActions mutation={add} label="Add provider" pendingLabel="Checking the provider…" onCancel={onDone} />
    </form>
  );
}
