"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmButton } from "~/components/confirm-button";
import { CopyButton } from "~/components/copy-button";
import { ResponsiveTable } from "~/components/ui/responsive-table";
import { useTRPC } from "~/trpc/react";
import { clientConfigs } from "./client-configs";
import { ConfigPicker } from "./config-picker";
import { When, formatAgo } from "~/components/when";
import { ToolsetsSection } from "./toolsets-section";
import { SignedInClients, SignInSnippets } from "./signed-in-clients";
import { FormError } from "~/components/ui/form-error";

export function ConnectView({
  teamId,
  mcpUrl,
  isAdmin = false,
}: {
  teamId: string;
  mcpUrl: string;
  isAdmin?: boolean;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tokens = useQuery(trpc.token.list.queryOptions({ teamId }));
  const [name, setName] = useState("");
  const [mode, setMode] = useState<"all" | "router">("all");
  const [toolsetId, setToolsetId] = useState("");
  const toolsets = useQuery(trpc.governance.toolsets.queryOptions({ teamId }));
  const refresh = () => queryClient.invalidateQueries(trpc.token.pathFilter());
  const create = useMutation(
    trpc.token.create.mutationOptions({
      onSuccess: () => {
        setName("");
        void refresh();
      },
    }),
  );
  const revoke = useMutation(trpc.token.revoke.mutationOptions({ onSuccess: refresh }));
  const shown = create.data?.token ?? "<your token>";
  // A token limited to a toolset is configured with the toolset's own address.
  const createdSet = toolsets.data?.find((t) => t.id === create.data?.toolsetId);
  const configs = clientConfigs(createdSet ? new URL(createdSet.path, mcpUrl).toString() : mcpUrl, shown);

  return (
    <div className="stack">
      <h1>Connect a client</h1>
      <p className="muted">
        MCP clients reach all your online servers through one endpoint: <code>{mcpUrl}</code>. Clients that sign in need
        only that URL; others authenticate with a personal access token.
      </p>

      <SignInSnippets mcpUrl={mcpUrl} />

      <form
        className="card stack"
        aria-label="Create a token"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({ teamId, name, mode, toolsetId: toolsetId || null });
        }}
      >
        <h2>Create a token</h2>
        <div className="row" style={{ alignItems: "flex-end" }}>
          <label style={{ flex: 1 }}>
            Token name
            <input
              value={name}
              onChange={(e) => setName(e.target.value)}
              required
              maxLength={80}
              placeholder="Claude Desktop on my laptop"
            />
          </label>
          <label>
            Limit to
            <select value={toolsetId} onChange={(e) => setToolsetId(e.target.value)} aria-label="Limit to toolset">
              <option value="">all my tools</option>
              {toolsets.data
                ?.filter((t) => !t.shadowed)
                .map((t) => (
                  <option key={t.id} value={t.id}>
                    toolset {t.name}
                  </option>
                ))}
            </select>
          </label>
          {toolsetId ? (
            <span className="muted small" data-testid="token-toolset-cost" style={{ alignSelf: "center" }}>
              {(() => {
                const set = toolsets.data?.find((t) => t.id === toolsetId);
                return set
                  ? `${set.cost.tokens.toLocaleString()} tokens (${set.toolMode === "router" ? "router mode" : `${set.cost.toolCount} tools`})`
                  : "";
              })()}
            </span>
          ) : (
            <label>
              Tools exposed
              <select value={mode} onChange={(e) => setMode(e.target.value as "all" | "router")}>
                <option value="all">every tool</option>
                <option value="router">router (search + call, saves context)</option>
              </select>
            </label>
          )}
          <button type="submit" disabled={create.isPending}>
            {create.isPending ? "Creating…" : "Create token"}
          </button>
        </div>
        <FormError error={create.error} />
        {create.data && (
          <div className="stack" data-testid="new-token">
            <strong>Copy this token now. It will not be shown again.</strong>
            <div className="row">
              <code className="block" style={{ flex: 1 }}>
                {create.data.token}
              </code>
              <CopyButton value={create.data.token} label="Copy token" />
            </div>
          </div>
        )}
      </form>

      <ToolsetsSection teamId={teamId} isAdmin={isAdmin} origin={mcpUrl} />

      <section className="card stack" aria-labelledby="config-heading">
        <h2 id="config-heading">Clients with a token</h2>
        <ConfigPicker label="MCP client" configs={configs} initial="claude-code" copyLabel="Copy configuration" />
        {!create.data && <span className="muted">Create a token above to fill it into the configuration.</span>}
      </section>

      <SignedInClients teamId={teamId} isAdmin={isAdmin} />

      <section className="card" aria-labelledby="tokens-heading">
        <h2 id="tokens-heading">Your tokens</h2>
        <ResponsiveTable
          label="Your tokens"
          columns={["Name", "Token", "Mode", "Toolset", "Last used", "Created"]}
          actions
          query={tokens}
          rows={tokens.data}
          empty="No tokens yet."
          actionError={revoke.error}
          row={(t) => (
            <tr key={t.id} data-testid="token-row">
              <th scope="row">{t.name}</th>
              <td data-label="Token">
                <code>{t.prefix}…</code>
              </td>
              <td data-label="Mode">
                {t.toolset ? (
                  <span className="muted">the toolset&apos;s</span>
                ) : t.mode === "router" ? (
                  "router"
                ) : (
                  "every tool"
                )}
              </td>
              <td data-label="Toolset">
                {t.toolset ? <code>{t.toolset.name}</code> : <span className="muted">all tools</span>}
              </td>
              <td data-label="Last used">{formatAgo(t.lastUsedAt)}</td>
              <td data-label="Created">
                <When date={t.createdAt} withTime={false} />
              </td>
              <td data-label="">
                {t.revokedAt ? (
                  <span className="badge danger">revoked</span>
                ) : (
                  <ConfirmButton
                    label="Revoke"
                    title={`Revoke ${t.name}?`}
                    body="Clients using this token lose access immediately."
                    confirmLabel="Revoke token"
                    onConfirm={() => revoke.mutate({ teamId, tokenId: t.id })}
                  />
                )}
              </td>
            </tr>
          )}
        />
      </section>
    </div>
  );
}
