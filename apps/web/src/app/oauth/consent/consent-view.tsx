"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { authClient } from "~/lib/auth-client";
import { errorMessage } from "~/lib/errors";
import { useTRPC } from "~/trpc/react";

type Decision = { redirect?: boolean; url?: string; redirect_uri?: string } | null;

/** Better Auth's consent endpoint, with the signed authorization request of this page's URL (oauthProviderClient). */
async function decide(accept: boolean): Promise<string> {
  const { data, error } = await authClient.$fetch<Decision>("/oauth2/consent", { method: "POST", body: { accept } });
  if (error) throw new Error(error.message ?? "The sign-in request could not be completed. Start again from your application.");
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
  const approve = useMutation(trpc.mcpClient.approve.mutationOptions());
  const [leaving, setLeaving] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  if (!clientId) {
    return (
      <div className="centered card stack">
        <h1>Nothing to approve</h1>
        <p className="error" role="alert">This page opens when an MCP client asks you to sign in. Start again from your application.</p>
      </div>
    );
  }
  if (consent.isPending) return <div className="centered card" aria-busy="true"><div className="skeleton" /></div>;
  if (consent.isError) {
    return (
      <div className="centered card stack">
        <h1>Unknown application</h1>
        <p className="error" role="alert">{errorMessage(consent.error)}</p>
      </div>
    );
  }

  const { client, teams, earlier } = consent.data;
  const allowedTeams = teams.filter((t) => t.allowed);
  const chosenTeam = teamId ?? (earlier && allowedTeams.some((t) => t.id === earlier.teamId) ? earlier.teamId : allowedTeams[0]?.id ?? null);
  const chosenMode = mode ?? earlier?.mode ?? "all";
  const redirectHost = hostOf(client.redirectUris[0]);

  async function onAllow() {
    if (!chosenTeam) return;
    setFailure(null);
    setLeaving(true);
    try {
      await approve.mutateAsync({ teamId: chosenTeam, clientId, mode: chosenMode });
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
            <>The application is identified by its metadata document at <code>{hostOf(client.clientId) ?? client.clientId}</code>.</>
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
                    <input type="radio" name="team" value={t.id} checked={chosenTeam === t.id} disabled={!t.allowed} onChange={() => setTeamId(t.id)} />
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
            <fieldset className="stack">
              <legend>Tools it sees</legend>
              <label className="row">
                <input type="radio" name="mode" value="all" checked={chosenMode === "all"} onChange={() => setMode("all")} />
                Every tool of your online servers
              </label>
              <label className="row">
                <input type="radio" name="mode" value="router" checked={chosenMode === "router"} onChange={() => setMode("router")} />
                Router: a few tools that search and call the others (fewer tokens in the model&apos;s context)
              </label>
            </fieldset>
            <p className="muted small">It reaches what a personal access token of yours would, until you revoke it on the Connect page.</p>
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
