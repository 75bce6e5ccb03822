"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { authClient } from "~/lib/auth-client";
import { errorMessage } from "~/lib/errors";
import { useTRPC } from "~/trpc/react";
import { FormError } from "~/components/ui/form-error";

type Decision = { redirect?: boolean; url?: string; redirect_uri?: string } | null;

/** Better Auth's consent endpoint, with the signed authorization request of this page's URL (oauthProviderClient). */
async function decide(accept: boolean): Promise<string> {
  const { data, error } = await authClient.$fetch<Decision>("/oauth2/consent", { method: "POST", body: { accept } });
  if (error)
    throw new Error(error.message ?? "The sign-in request could not be completed. Start again from your application.");
  const url = data?.url ?? data?.redirect_uri;
  if (!url) throw new Error("The sign-in request could not be completed. Start again from your application.");
  return url;
}

function hostOf(uri: string | undefined): string | null {
  try {
    return uri ? new URL(uri).host : null;
  } catch {
    return null;
  }
}

export function ConsentView({ clientId }: { clientId: string }) {
  const trpc = useTRPC();
  const consent = useQuery({ ...trpc.mcpClient.consent.queryOptions({ clientId }), enabled: clientId !== "" });
  const [teamId, setTeamId] = useState<string | null>(null);
  const [mode, setMode] = useState<"all" | "router" | null>(null);
  // null: not chosen on this page yet (the earlier grant's toolset, if any); "": every tool of the team.
  const [toolsetId, setToolsetId] = useState<string | null>(null);
  const approve = useMutation(trpc.mcpClient.approve.mutationOptions());
  const allowedTeams = consent.data?.teams.filter((t) => t.allowed) ?? [];
  const earlier = consent.data?.earlier ?? null;
  const chosenTeam =
    teamId ??
    (earlier && allowedTeams.some((t) => t.id === earlier.teamId) ? earlier.teamId : (allowedTeams[0]?.id ?? null));
  // The member's own toolsets and the team's, for the chosen team (what a personal token may be limited to).
  const toolsets = useQuery({
    ...trpc.governance.toolsets.queryOptions({ teamId: chosenTeam ?? "" }),
    enabled: chosenTeam !== null,
  });
  const [leaving, setLeaving] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  if (!clientId) {
    return (
      <div className="centered card stack">
        <h1>Nothing to approve</h1>
        <p className="error" role="alert">
          This page opens when an MCP client asks you to sign in. Start again from your application.
        </p>
      </div>
    );
  }
  if (consent.isPending)
    return (
      <div className="centered card" aria-busy="true">
        <div className="skeleton" />
      </div>
    );
  if (consent.isError) {
    return (
      <div className="centered card stack">
        <h1>Unknown application</h1>
        <FormError error={consent.error} />
      </div>
    );
  }

  const { client, teams } = consent.data;
  const chosenMode = mode ?? earlier?.mode ?? "all";
  const usableSets = toolsets.data?.filter((t) => !t.shadowed) ?? [];
  const rememberedSet =
    earlier && earlier.teamId === chosenTeam && earlier.toolsetId && usableSets.some((t) => t.id === earlier.toolsetId)
      ? earlier.toolsetId
      : "";
  const chosenSetId = toolsetId ?? rememberedSet;
  const chosenSet = usableSets.find((t) => t.id === chosenSetId) ?? null;
  const redirectHost = hostOf(client.redirectUris[0]);

  async function onAllow() {
    if (!chosenTeam) return;
    setFailure(null);
    setLeaving(true);
    try {
      await approve.mutateAsync({ teamId: chosenTeam, clientId, mode: chosenMode, toolsetId: chosenSet?.id ?? null });
      window.location.assign(await decide(true));
    } catch (err) {
      setLeaving(false);
      setFailure(errorMessage(err));
    }
  }

  async function onDeny() {
    setFailure(null);
    setLeaving(true);
    try {
      window.location.assign(await decide(false));
    } catch (err) {
      setLeaving(false);
      setFailure(errorMessage(err));
    }
  }

  return (
    <div className="centered">
      <div className="card stack" data-testid="oauth-consent">
        <div className="row">
          {client.logoUri && <img src={client.logoUri} alt="" width={40} height={40} referrerPolicy="no-referrer" />}
          <h1>
            Sign in <span data-testid="consent-client-name">{client.name}</span> to Switchboard?
          </h1>
        </div>
        <p className="muted">
          {client.registration === "metadata-document" ? (
            <>
              The application is identified by its metadata document at{" "}
              <code>{hostOf(client.clientId) ?? client.clientId}</code>.
            </>
          ) : (
            <>The application registered itself; Switchboard cannot confirm who publishes it.</>
          )}{" "}
          {redirectHost && (
            <>
              After you decide, you return to <code>{redirectHost}</code>.
            </>
          )}
        </p>

        {allowedTeams.length === 0 ? (
          <p className="error" role="alert">
            {teams.length === 0
              ? "You are not a member of any team yet, so there is nothing this application could reach."
              : "None of your teams accepts applications that registered themselves. Ask a team admin, or use a personal access token from the Connect page."}
          </p>
        ) : (
          <>
            {allowedTeams.length > 1 || teams.length > 1 ? (
              <fieldset className="stack">
                <legend>Team it may use</legend>
                {teams.map((t) => (
                  <label key={t.id} className="row">
                    <input
                      type="radio"
                      name="team"
                      value={t.id}
                      checked={chosenTeam === t.id}
                      disabled={!t.allowed}
                      onChange={() => {
                        setTeamId(t.id);
                        setToolsetId(null);
                      }}
                    />
                    {t.name}
                    {!t.allowed && <span className="muted small">(does not accept self-registered applications)</span>}
                  </label>
                ))}
              </fieldset>
            ) : (
              <p>
                It will use the servers of <strong>{allowedTeams[0]!.name}</strong> as you.
              </p>
            )}
            <label className="stack">
              Limit to a toolset
              <select
                value={chosenSet?.id ?? ""}
                onChange={(e) => setToolsetId(e.target.value)}
                disabled={toolsets.isPending || toolsets.isError}
                aria-describedby="consent-toolset-help"
                data-testid="consent-toolset"
              >
                <option value="">No limit: every tool of the team</option>
                {usableSets.map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.teamWide ? `${t.name} (team)` : t.name}
                  </option>
                ))}
              </select>
              <span id="consent-toolset-help" className="muted small">
                {toolsets.isPending
                  ? "Loading your toolsets…"
                  : toolsets.isError
                    ? `Your toolsets could not be loaded: ${errorMessage(toolsets.error)}`
                    : chosenSet
                      ? `It sees only this selection, ${chosenSet.toolMode === "router" ? "in router mode" : `${chosenSet.cost.toolCount} tools`} (about ${chosenSet.cost.tokens.toLocaleString()} tokens).`
                      : usableSets.length === 0
                        ? "You have no toolsets in this team yet; build one on the Connect page."
                        : "Optional: a toolset is a named selection of tools, with its own tool mode."}
              </span>
            </label>
            {!chosenSet && (
              <fieldset className="stack">
                <legend>Tools it sees</legend>
                <label className="row">
                  <input
                    type="radio"
                    name="mode"
                    value="all"
                    checked={chosenMode === "all"}
                    onChange={() => setMode("all")}
                  />
                  Every tool of your online servers
                </label>
                <label className="row">
                  <input
                    type="radio"
                    name="mode"
                    value="router"
                    checked={chosenMode === "router"}
                    onChange={() => setMode("router")}
                  />
                  Router: a few tools that search and call the others (fewer tokens in the model&apos;s context)
                </label>
              </fieldset>
            )}
            <p className="muted small">
              It reaches what a personal access token of yours would, until you revoke it on the Connect page.
            </p>
          </>
        )}

        {failure && (
          <p className="error" role="alert">
            {failure}
          </p>
        )}
        <div className="row">
          <button type="button" onClick={onAllow} disabled={leaving || !chosenTeam}>
            {leaving && approve.isPending ? "Allowing…" : "Allow"}
          </button>
          <button type="button" className="secondary" onClick={onDeny} disabled={leaving}>
            Deny
          </button>
        </div>
      </div>
    </div>
  );
}
