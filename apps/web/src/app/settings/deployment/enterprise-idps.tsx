"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmButton } from "~/components/confirm-button";
import { ErrorText } from "~/components/console/error-text";
import { useTRPC } from "~/trpc/react";
import type { RouterOutputs } from "~/trpc/types";
import { QueryState } from "~/components/ui/query-state";
import { FormError } from "~/components/ui/form-error";

type Idp = RouterOutputs["enterpriseIdp"]["list"][number];
type Draft = {
  name: string;
  issuer: string;
  jwksUrl: string;
  memberClaim: "sub" | "email";
  accountProviderId: string;
  /** Comma- or space-separated, as typed. */
  emailDomains: string;
};

const EMPTY: Draft = {
  name: "",
  issuer: "",
  jwksUrl: "",
  memberClaim: "sub",
  accountProviderId: "",
  emailDomains: "",
};

/**
 * Enterprise identity providers trusted for enterprise-managed authorization (ID-JAG): MCP clients exchange the
 * identity assertion grants they issue for access tokens, without a consent page. Added disabled; tested; enabled.
 */
export function EnterpriseIdpsSection() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const idps = useQuery(trpc.enterpriseIdp.list.queryOptions());
  const refresh = () => queryClient.invalidateQueries(trpc.enterpriseIdp.list.pathFilter());
  const [adding, setAdding] = useState(false);
  return (
    <section className="card stack" aria-labelledby="idp-heading">
      <h2 id="idp-heading">Enterprise-managed authorization (ID-JAG)</h2>
      <p className="muted">
        MCP clients that signed in through one of these identity providers may exchange its identity assertion grant for
        a token to the MCP route, without a consent page. The member is the one the assertion names; the client reaches
        that member&apos;s team. Sign-in providers (SSO) are configured elsewhere.
      </p>
      <QueryState
        query={idps}
        errorPrefix="Could not load the identity providers: "
        isEmpty={(list) => list.length === 0}
        empty={
          <p data-testid="idp-empty">
            No identity provider yet: MCP clients sign in with the consent page or a personal access token.
          </p>
        }
      >
        {(list) => (
          <ul className="stack" style={{ listStyle: "none", padding: 0, margin: 0 }}>
            {list.map((idp) => (
              <IdpRow key={idp.id} idp={idp} onChanged={refresh} />
            ))}
          </ul>
        )}
      </QueryState>
      {adding ? (
        <IdpForm
          initial={EMPTY}
          submitLabel="Add identity provider"
          onDone={() => {
            setAdding(false);
            void refresh();
          }}
          onCancel={() => setAdding(false)}
        />
      ) : (
        <div>
          <button type="button" onClick={() => setAdding(true)}>
            Add an identity provider
          </button>
        </div>
      )}
    </section>
  );
}

function IdpRow({ idp, onChanged }: { idp: Idp; onChanged: () => unknown }) {
  const trpc = useTRPC();
  const [editing, setEditing] = useState(false);
  const test = useMutation(trpc.enterpriseIdp.test.mutationOptions());
  const setEnabled = useMutation(trpc.enterpriseIdp.setEnabled.mutationOptions({ onSuccess: onChanged }));
  const remove = useMutation(trpc.enterpriseIdp.remove.mutationOptions({ onSuccess: onChanged }));
  const failure = setEnabled.error ?? remove.error;
  if (editing)
    return (
      <li>
        <IdpForm
          issuerId={idp.id}
          initial={{
            ...idp,
            accountProviderId: idp.accountProviderId ?? "",
            emailDomains: idp.emailDomains.join(", "),
          }}
          submitLabel="Save changes"
          onDone={() => {
            setEditing(false);
            void onChanged();
          }}
          onCancel={() => setEditing(false)}
        />
      </li>
    );
  return (
    <li className="stack" data-testid="idp-row" style={{ borderTop: "1px solid var(--border, #ddd)", paddingTop: 8 }}>
      <div className="row" style={{ justifyContent: "space-between", flexWrap: "wrap" }}>
        <strong>{idp.name}</strong>
        <span className={idp.enabled ? undefined : "muted"}>{idp.enabled ? "Enabled" : "Disabled"}</span>
      </div>
      <dl className="muted" style={{ margin: 0, overflowWrap: "anywhere" }}>
        <div>
          <dt style={{ display: "inline" }}>Issuer: </dt>
          <dd style={{ display: "inline", margin: 0 }}>{idp.issuer}</dd>
        </div>
        <div>
          <dt style={{ display: "inline" }}>JWKS: </dt>
          <dd style={{ display: "inline", margin: 0 }}>{idp.jwksUrl}</dd>
        </div>
        <div>
          <dt style={{ display: "inline" }}>Member: </dt>
          <dd style={{ display: "inline", margin: 0 }}>
            {idp.memberClaim === "email"
              ? "the email claim, matched to a member's address"
              : `the sub claim, matched to an account linked under “${idp.accountProviderId ?? idp.issuer}”`}
          </dd>
        </div>
        {idp.memberClaim === "email" && (
          <div>
            <dt style={{ display: "inline" }}>Email domains: </dt>
            <dd style={{ display: "inline", margin: 0 }}>
              {idp.emailDomains.length > 0 ? (
                idp.emailDomains.join(", ")
              ) : (
                <span className="error" data-testid="idp-any-domain">
                  any (added before domains were asked for): edit it to name the domains it owns
                </span>
              )}
            </dd>
          </div>
        )}
      </dl>
      <div className="row" style={{ flexWrap: "wrap" }}>
        <button
          type="button"
          className="secondary"
          disabled={test.isPending}
          aria-label={`Test ${idp.name}: fetch its JWKS`}
          onClick={() => test.mutate({ issuerId: idp.id })}
        >
          {test.isPending ? "Fetching the JWKS…" : "Test (fetches the JWKS)"}
        </button>
        {idp.enabled ? (
          <ConfirmButton
            label="Disable"
            triggerLabel={`Disable ${idp.name}`}
            title={`Disable ${idp.name}?`}
            body="MCP clients can no longer exchange its assertions; tokens already issued stay valid until they expire (15 minutes at most)."
            confirmLabel="Disable"
            disabled={setEnabled.isPending}
            onConfirm={() => setEnabled.mutate({ issuerId: idp.id, enabled: false })}
          />
        ) : (
          <ConfirmButton
            label="Enable"
            triggerLabel={`Enable ${idp.name}`}
            title={`Enable ${idp.name}?`}
            body="Every MCP client its assertions name will get tokens for the member they name, in that member's team, without a consent page."
            confirmLabel="Enable"
            tone="primary"
            disabled={setEnabled.isPending}
            onConfirm={() => setEnabled.mutate({ issuerId: idp.id, enabled: true })}
          />
        )}
        <button type="button" className="secondary" aria-label={`Edit ${idp.name}`} onClick={() => setEditing(true)}>
          Edit
        </button>
        <ConfirmButton
          label="Remove"
          triggerLabel={`Remove ${idp.name}`}
          title={`Remove ${idp.name}?`}
          body="Its assertions are refused from now on; tokens already issued stay valid until they expire."
          confirmLabel="Remove"
          disabled={remove.isPending}
          onConfirm={() => remove.mutate({ issuerId: idp.id })}
        />
      </div>
      {test.data && (
        <p role="status" className={test.data.ok ? undefined : "error"} data-testid="idp-test-result">
          {test.data.ok ? test.data.message : <ErrorText message={test.data.message} detail={test.data.detail} />}
        </p>
      )}
      <FormError error={test.error} />
      {failure && <FormError error={failure} />}
    </li>
  );
}

function IdpForm({
  issuerId,
  initial,
  submitLabel,
  onDone,
  onCancel,
}: {
  issuerId?: string;
  initial: Draft;
  submitLabel: string;
  onDone: () => void;
  onCancel: () => void;
}) {
  const trpc = useTRPC();
  const [draft, setDraft] = useState<Draft>(initial);
  const add = useMutation(trpc.enterpriseIdp.add.mutationOptions({ onSuccess: onDone }));
  const update = useMutation(trpc.enterpriseIdp.update.mutationOptions({ onSuccess: onDone }));
  const pending = add.isPending || update.isPending;
  const error = add.error ?? update.error;
  const set = (key: keyof Draft) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) =>
    setDraft({ ...draft, [key]: e.target.value });
  return (
    <form
      className="stack"
      aria-label={issuerId ? `Edit ${initial.name}` : "Add an identity provider"}
      onSubmit={(e) => {
        e.preventDefault();
        const input = { ...draft, accountProviderId: draft.accountProviderId.trim() || null };
        if (issuerId) update.mutate({ ...input, issuerId });
        else add.mutate(input);
      }}
    >
      <label>
        Name
        <input required maxLength={80} value={draft.name} onChange={set("name")} placeholder="Acme Okta" />
      </label>
      <label>
        Issuer URL (the iss of its assertions, exactly)
        <input required type="url" value={draft.issuer} onChange={set("issuer")} placeholder="https://acme.okta.com" />
      </label>
      <label>
        JWKS URL (its signing keys)
        <input
          required
          type="url"
          value={draft.jwksUrl}
          onChange={set("jwksUrl")}
          placeholder="https://acme.okta.com/oauth2/v1/keys"
        />
      </label>
      <label>
        The member is named by
        <select value={draft.memberClaim} onChange={set("memberClaim")}>
          <option value="sub">sub, matched to a linked account</option>
          <option value="email">email, matched to a member&apos;s address</option>
        </select>
      </label>
      {draft.memberClaim === "email" && (
        <label>
          Email domains it owns (comma-separated; a subdomain counts): its assertions may name only these addresses
          <input
            required
            maxLength={2000}
            value={draft.emailDomains}
            onChange={set("emailDomains")}
            placeholder="acme.com, acme.co.uk"
          />
        </label>
      )}
      {draft.memberClaim === "sub" && (
        <label>
          Provider id of the linked accounts (empty: the issuer URL)
          <input maxLength={200} value={draft.accountProviderId} onChange={set("accountProviderId")} />
        </label>
      )}
      <p className="muted">A new provider starts disabled: test it, then enable it.</p>
      <div className="row" style={{ flexWrap: "wrap" }}>
        <button type="submit" disabled={pending}>
          {pending ? "Saving…" : submitLabel}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
      {error && <FormError error={error} />}
    </form>
  );
}
