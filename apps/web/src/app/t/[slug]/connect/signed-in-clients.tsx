"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ConfirmButton } from "~/components/confirm-button";
import { ResponsiveTable } from "~/components/ui/responsive-table";
import { formatAgo } from "~/components/when";
import { useTRPC } from "~/trpc/react";
import { signInConfigs } from "./client-configs";
import { ConfigPicker } from "./config-picker";
import { FormError } from "~/components/ui/form-error";

/** The URL-only configuration for clients that sign in with OAuth. */
export function SignInSnippets({ mcpUrl }: { mcpUrl: string }) {
  return (
    <section className="card stack" aria-labelledby="sign-in-heading">
      <h2 id="sign-in-heading">Clients that sign in</h2>
      <p className="muted">
        Claude, ChatGPT, VS Code, Cursor and other clients that follow the MCP authorization specification need only the
        URL: they open a Switchboard page where you pick the team and the tools they see. No token to copy.
      </p>
      <ConfigPicker
        label="Client that signs in"
        configs={signInConfigs(mcpUrl)}
        copyLabel="Copy"
        testId="sign-in-snippet"
      />
    </section>
  );
}

/** The member's MCP clients signed in to this team, with revoke; for admins, whether self-registered clients may. */
export function SignedInClients({ teamId, isAdmin }: { teamId: string; isAdmin: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const clients = useQuery(trpc.mcpClient.list.queryOptions({ teamId }));
  const refresh = () => queryClient.invalidateQueries(trpc.mcpClient.pathFilter());
  const revoke = useMutation(trpc.mcpClient.revoke.mutationOptions({ onSuccess: refresh }));

  return (
    <section className="card stack" aria-labelledby="signed-in-heading">
      <h2 id="signed-in-heading">Signed-in clients</h2>
      <ResponsiveTable
        label="Signed-in clients"
        columns={["Client", "Mode", "Last used", "Signed in"]}
        actions
        query={clients}
        rows={clients.data}
        empty="No client has signed in to this team yet."
        actionError={revoke.error}
        row={(c) => (
          <tr key={c.id} data-testid="signed-in-client-row">
            <th scope="row">
              <span className="row">
                {c.logoUri && <img src={c.logoUri} alt="" width={20} height={20} referrerPolicy="no-referrer" />}
                <span>{c.name}</span>
                {c.registration === "dynamic" && (
                  <span className="badge" title="The client registered itself; its name is its own claim.">
                    self-registered
                  </span>
                )}
              </span>
            </th>
            <td data-label="Mode">
              {c.toolset ? (
                <span data-testid="signed-in-client-toolset">
                  toolset <strong>{c.toolset.name}</strong>
                </span>
              ) : c.mode === "router" ? (
                "router"
              ) : (
                "every tool"
              )}
            </td>
            <td data-label="Last used">{formatAgo(c.lastUsedAt, (d) => d.toLocaleDateString())}</td>
            <td data-label="Signed in">{c.createdAt.toLocaleDateString()}</td>
            <td data-label="">
              <ConfirmButton
                label="Revoke"
                title={`Revoke ${c.name}?`}
                body="The client loses access immediately and has to sign in again to come back."
                confirmLabel="Revoke access"
                onConfirm={() => revoke.mutate({ teamId, grantId: c.id })}
              />
            </td>
          </tr>
        )}
      />
      {isAdmin && <DynamicClientsPolicy teamId={teamId} />}
    </section>
  );
}

function DynamicClientsPolicy({ teamId }: { teamId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const policy = useQuery(trpc.mcpClient.policy.queryOptions({ teamId }));
  const set = useMutation(
    trpc.mcpClient.setPolicy.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.mcpClient.pathFilter()),
    }),
  );
  if (policy.isPending) return <div className="skeleton" aria-busy="true" />;
  if (policy.isError) return <FormError error={policy.error} />;
  return (
    <div className="stack">
      <label className="row">
        <input
          type="checkbox"
          checked={policy.data.allowed}
          disabled={set.isPending}
          onChange={(e) => set.mutate({ teamId, allowed: e.target.checked })}
          aria-describedby="dcr-help"
        />
        Accept clients that registered themselves (dynamic client registration)
      </label>
      <span id="dcr-help" className="muted small">
        Team admin setting. Clients identified by a metadata document are always accepted. Turning this off signs out
        the team&apos;s self-registered clients at once.
      </span>
      <FormError error={set.error} />
      {set.data && set.data.signedOut > 0 && <p className="muted small">{set.data.signedOut} client(s) signed out.</p>}
    </div>
  );
}
