"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { LAUNCHERS, type AllowedCommand, type Launcher } from "@switchboard/core/deployment";
import { parsePortList } from "@switchboard/core/sandbox";
import { ConfirmButton } from "~/components/confirm-button";
import { errorMessage } from "~/lib/errors";
import { useTRPC } from "~/trpc/react";
import type { RouterOutputs } from "~/trpc/types";
import { SsoSection } from "./sso-section";
import { EnterpriseIdpsSection } from "./enterprise-idps";

export function DeploymentView() {
  return (
    <div className="stack">
      <h1>Deployment settings</h1>
      <p className="muted">
        These settings apply to the whole Switchboard deployment and only deployment owners see them. Stdio servers are
        programs that run on the worker host: a team can install them only when you allow the team and the command.
      </p>
      <p>
        <Link href="/settings/audit">Audit trail</Link>: every team&apos;s changes, sign-ins and these settings.
      </p>
      <p>
        <Link href="/settings/identity">Identity provider</Link>: SCIM provisioning and groups to teams.
      </p>
      <SignupSection />
      <OwnersSection />
      <SsoSection />
      <TeamsSection />
      <AllowListSection />
      <LoopbackSection />
      <EnterpriseIdpsSection />
      <OperatorSection />
    </div>
  );
}

type Settings = RouterOutputs["deployment"]["settings"];

function useSettings() {
  const trpc = useTRPC();
  return useQuery(trpc.deployment.settings.queryOptions());
}

function Loading() {
  return (
    <div className="stack" aria-busy="true">
      <div className="skeleton" />
      <div className="skeleton" />
    </div>
  );
}

function SignupSection() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const settings = useSettings();
  const setMode = useMutation(
    trpc.deployment.setSignupMode.mutationOptions({
      onSuccess: (data) => queryClient.setQueryData(trpc.deployment.settings.queryKey(), data),
    }),
  );
  return (
    <section className="card stack" aria-labelledby="signup-heading">
      <h2 id="signup-heading">Sign-up</h2>
      {settings.isPending ? (
        <Loading />
      ) : settings.isError ? (
        <p className="error" role="alert">
          Could not load the settings: {errorMessage(settings.error)}
        </p>
      ) : (
        <>
          <p data-testid="signup-mode">
            {settings.data.signupMode === "invite_only"
              ? "Invitation only: people get an account only through an invitation from a team admin."
              : "Open: anyone who can reach this console can create an account."}
          </p>
          {settings.data.signupModeFixedByOperator ? (
            <p className="muted">
              Fixed by the operator with SIGNUP_MODE={settings.data.operator.signupMode}; change it in the server's
              environment.
            </p>
          ) : settings.data.signupMode === "invite_only" ? (
            <ConfirmButton
              label="Open sign-up to everyone"
              title="Open sign-up?"
              body="Anyone who can reach this console will be able to create an account and their own teams."
              confirmLabel="Open sign-up"
              disabled={setMode.isPending}
              onConfirm={() => setMode.mutate({ mode: "open" })}
            />
          ) : (
            <button
              type="button"
              className="secondary"
              disabled={setMode.isPending}
              onClick={() => setMode.mutate({ mode: "invite_only" })}
            >
              Make sign-up invitation only
            </button>
          )}
          {setMode.isError && (
            <p className="error" role="alert">
              {errorMessage(setMode.error)}
            </p>
          )}
        </>
      )}
    </section>
  );
}

function OwnersSection() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const owners = useQuery(trpc.deployment.owners.queryOptions());
  const [email, setEmail] = useState("");
  const store = (data: Array<{ id: string; name: string; email: string }>) =>
    queryClient.setQueryData(trpc.deployment.owners.queryKey(), data);
  const add = useMutation(
    trpc.deployment.addOwner.mutationOptions({
      onSuccess: (data) => {
        setEmail("");
        store(data);
      },
    }),
  );
  const remove = useMutation(trpc.deployment.removeOwner.mutationOptions({ onSuccess: store }));
  return (
    <section className="card stack" aria-labelledby="owners-heading">
      <h2 id="owners-heading">Deployment owners</h2>
      <p className="muted">They see this page and change these settings. The first account created became one.</p>
      {remove.isError && (
        <p className="error" role="alert">
          {errorMessage(remove.error)}
        </p>
      )}
      {owners.isPending ? (
        <Loading />
      ) : owners.isError ? (
        <p className="error" role="alert">
          Could not load the owners: {errorMessage(owners.error)}
        </p>
      ) : (
        <ul className="stack" style={{ listStyle: "none", padding: 0, margin: 0 }}>
          {owners.data.map((o) => (
            <li
              key={o.id}
              className="row"
              style={{ justifyContent: "space-between" }}
              data-testid="deployment-owner-row"
            >
              <span>
                {o.name} <span className="muted">{o.email}</span>
              </span>
              <ConfirmButton
                label={`Remove ${o.email} as owner`}
                title={`Remove ${o.email} as deployment owner?`}
                body="They keep their account and teams but can no longer see or change the deployment settings."
                confirmLabel="Remove owner"
                disabled={remove.isPending || owners.data.length <= 1}
                onConfirm={() => remove.mutate({ userId: o.id })}
              />
            </li>
          ))}
        </ul>
      )}
      <form
        className="row"
        style={{ alignItems: "flex-end" }}
        aria-label="Add a deployment owner"
        onSubmit={(e) => {
          e.preventDefault();
          add.mutate({ email });
        }}
      >
        <label style={{ flex: 1 }}>
          Email of an existing account
          <input
            type="email"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            placeholder="colleague@example.com"
          />
        </label>
        <button type="submit" disabled={add.isPending}>
          {add.isPending ? "Adding…" : "Make owner"}
        </button>
      </form>
      {add.isError && (
        <p className="error" role="alert">
          {errorMessage(add.error)}
        </p>
      )}
    </section>
  );
}

function TeamsSection() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const teams = useInfiniteQuery(
    trpc.deployment.teams.infiniteQueryOptions({ limit: 50 }, { getNextPageParam: (last) => last.nextCursor }),
  );
  const toggle = useMutation(
    trpc.deployment.setTeamStdio.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.deployment.teams.pathFilter()),
    }),
  );
  const rows = teams.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <section className="card stack" aria-labelledby="teams-heading">
      <h2 id="teams-heading">Teams allowed to run stdio servers</h2>
      <p className="muted">
        New teams may not. Withdrawing the permission stops the team&apos;s stdio servers; remote servers are not
        affected.
      </p>
      {toggle.isError && (
        <p className="error" role="alert">
          {errorMessage(toggle.error)}
        </p>
      )}
      {teams.isPending ? (
        <Loading />
      ) : teams.isError ? (
        <p className="error" role="alert">
          Could not load the teams: {errorMessage(teams.error)}
        </p>
      ) : rows.length === 0 ? (
        <p className="empty">No teams yet.</p>
      ) : (
        <table className="responsive" aria-label="Teams">
          <thead>
            <tr>
              <th scope="col">Team</th>
              <th scope="col">Members</th>
              <th scope="col">Stdio servers installed</th>
              <th scope="col">Stdio</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((t) => (
              <tr key={t.id} data-testid="deployment-team-row">
                <th scope="row">
                  {t.name} <span className="muted">/{t.slug}</span>
                  {!t.hasOwner && (
                    <>
                      {" "}
                      <span className="badge" title="The identity provider removed its last owner and nobody was left">
                        no owner
                      </span>
                    </>
                  )}
                </th>
                <td data-label="Members">{t.memberCount}</td>
                <td data-label="Stdio servers installed">{t.stdioInstallationCount}</td>
                <td data-label="Stdio">
                  <span className="badge">{t.stdioAllowed ? "allowed" : "not allowed"}</span>
                </td>
                <td data-label="">
                  {!t.stdioAllowed ? (
                    <button
                      type="button"
                      className="secondary"
                      disabled={toggle.isPending}
                      onClick={() => toggle.mutate({ teamId: t.id, allowed: true })}
                    >
                      Allow stdio for {t.name}
                    </button>
                  ) : (
                    <ConfirmButton
                      label={`Withdraw stdio from ${t.name}`}
                      title={`Withdraw stdio from ${t.name}?`}
                      body={
                        t.stdioInstallationCount > 0
                          ? `Its ${t.stdioInstallationCount} stdio server(s) stop and will not start again until you allow the team again.`
                          : "The team will not be able to add or install stdio servers."
                      }
                      confirmLabel="Withdraw"
                      disabled={toggle.isPending}
                      onConfirm={() => toggle.mutate({ teamId: t.id, allowed: false })}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {teams.hasNextPage && (
        <button
          type="button"
          className="secondary"
          onClick={() => teams.fetchNextPage()}
          disabled={teams.isFetchingNextPage}
        >
          {teams.isFetchingNextPage ? "Loading…" : "Load more"}
        </button>
      )}
    </section>
  );
}

function AllowListSection() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const settings = useSettings();
  const store = {
    onSuccess: (data: unknown) => queryClient.setQueryData(trpc.deployment.settings.queryKey(), data as never),
  };
  const remove = useMutation(trpc.deployment.removeAllowedCommand.mutationOptions(store));
  return (
    <section className="card stack" aria-labelledby="allow-list-heading">
      <h2 id="allow-list-heading">Allowed commands</h2>
      <ul className="muted">
        <li>
          <strong>Program</strong>: a name found on the worker&apos;s PATH (<code>node</code>) or an absolute path. Team
          admins may pass it any arguments, so allowing an interpreter such as node or python lets them run any code
          with it.
        </li>
        <li>
          <strong>Package</strong>: a launcher (npx, uvx, …) and a package name. Team admins may run any version of that
          package through that launcher; options that change the registry or run another program (<code>-c</code>,{" "}
          <code>--registry</code>, <code>--package</code>, <code>--from</code>) are refused.
        </li>
      </ul>
      {remove.isError && (
        <p className="error" role="alert">
          {errorMessage(remove.error)}
        </p>
      )}
      {settings.isPending ? (
        <Loading />
      ) : settings.isError ? (
        <p className="error" role="alert">
          Could not load the settings: {errorMessage(settings.error)}
        </p>
      ) : settings.data.allowList.length === 0 ? (
        <p className="empty">No commands allowed yet: no stdio server can be added or started.</p>
      ) : (
        <table className="responsive" aria-label="Allowed commands">
          <thead>
            <tr>
              <th scope="col">Command</th>
              <th scope="col">Kind</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {settings.data.allowList.map(({ entry, label }) => (
              <tr key={label} data-testid="allowed-command-row">
                <th scope="row">
                  <code>{label}</code>
                </th>
                <td data-label="Kind">{entry.kind === "executable" ? "program" : `package (${entry.launcher})`}</td>
                <td data-label="">
                  <ConfirmButton
                    label={`Remove ${label}`}
                    title={`Remove ${label}?`}
                    body="Stdio servers that run it stop, and teams can no longer add or install it."
                    confirmLabel="Remove"
                    disabled={remove.isPending}
                    onConfirm={() => remove.mutate({ entry: entry as AllowedCommand })}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <AddCommandForm />
    </section>
  );
}

function AddCommandForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [kind, setKind] = useState<"executable" | "package">("package");
  const [launcher, setLauncher] = useState<Launcher>("npx");
  const [name, setName] = useState("");
  const add = useMutation(
    trpc.deployment.addAllowedCommand.mutationOptions({
      onSuccess: (data) => {
        setName("");
        queryClient.setQueryData(trpc.deployment.settings.queryKey(), data);
      },
    }),
  );
  return (
    <form
      className="stack"
      aria-label="Allow a command"
      onSubmit={(e) => {
        e.preventDefault();
        add.mutate({ entry: kind === "executable" ? { kind, name } : { kind, launcher, name } });
      }}
    >
      <div className="row" style={{ alignItems: "flex-end" }}>
        <label>
          Kind
          <select value={kind} onChange={(e) => setKind(e.target.value as "executable" | "package")}>
            <option value="package">Package</option>
            <option value="executable">Program</option>
          </select>
        </label>
        {kind === "package" && (
          <label>
            Launcher
            <select value={launcher} onChange={(e) => setLauncher(e.target.value as Launcher)}>
              {LAUNCHERS.map((l) => (
                <option key={l} value={l}>
                  {l}
                </option>
              ))}
            </select>
          </label>
        )}
        <label style={{ flex: 1 }}>
          {kind === "package" ? "Package name" : "Program"}
          <input
            required
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder={
              kind === "package" ? "@modelcontextprotocol/server-everything" : "node or /usr/local/bin/my-server"
            }
          />
        </label>
        <button type="submit" disabled={add.isPending}>
          {add.isPending ? "Adding…" : "Allow"}
        </button>
      </div>
      {add.isError && (
        <p className="error" role="alert">
          {errorMessage(add.error)}
        </p>
      )}
    </form>
  );
}

/** Host loopback ports sandboxes may be given; an installation's admin picks among them, per installation. */
function LoopbackSection() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [port, setPort] = useState("");
  const [invalid, setInvalid] = useState<string | null>(null);
  const store = (data: unknown) => queryClient.setQueryData(trpc.deployment.settings.queryKey(), data as never);
  const add = useMutation(
    trpc.deployment.addSandboxLoopbackPort.mutationOptions({
      onSuccess: (data) => {
        setPort("");
        store(data);
      },
    }),
  );
  const remove = useMutation(trpc.deployment.removeSandboxLoopbackPort.mutationOptions({ onSuccess: store }));
  const failure = invalid ?? ((add.error ?? remove.error) ? errorMessage(add.error ?? remove.error) : null);
  return (
    <section className="card stack" aria-labelledby="loopback-heading">
      <h2 id="loopback-heading">Host services sandboxes may reach</h2>
      <p className="muted">
        Ports on the worker host&apos;s 127.0.0.1 that stdio servers with outbound access may be given. Each
        installation&apos;s admin picks among them; teams cannot add others. Switchboard&apos;s own services are never
        reachable, whoever asks.
      </p>
      <WithSettings>
        {({ sandboxLoopback }) => (
          <>
            {sandboxLoopback.ports.length === 0 ? (
              <p className="empty">No ports allowed here: sandboxes reach none of the host&apos;s services.</p>
            ) : (
              <ul className="stack" style={{ listStyle: "none", padding: 0, margin: 0 }}>
                {sandboxLoopback.ports.map((p) => (
                  <li
                    key={p}
                    className="row"
                    style={{ justifyContent: "space-between" }}
                    data-testid="loopback-port-row"
                  >
                    <code>127.0.0.1:{p}</code>
                    <ConfirmButton
                      label={`Remove port ${p}`}
                      title={`Remove port ${p}?`}
                      body="Stdio servers that were given it restart without it."
                      confirmLabel="Remove"
                      disabled={remove.isPending}
                      onConfirm={() => remove.mutate({ port: p })}
                    />
                  </li>
                ))}
              </ul>
            )}
            <p className="muted small" data-testid="loopback-operator-ports">
              Allowed by the operator (STDIO_SANDBOX_LOOPBACK_PORTS):{" "}
              {sandboxLoopback.operatorPorts.join(", ") || "none"}
            </p>
            <p className="muted small" data-testid="loopback-reserved-ports">
              Never: {sandboxLoopback.reserved.map((r) => `${r.port} (${r.service})`).join(", ")}
            </p>
          </>
        )}
      </WithSettings>
      <form
        className="row"
        style={{ alignItems: "flex-end" }}
        aria-label="Allow a host service"
        onSubmit={(e) => {
          e.preventDefault();
          const parsed = parsePortList(port);
          const one = "ports" in parsed && parsed.ports.length === 1 ? parsed.ports[0] : undefined;
          setInvalid(one === undefined ? "Enter one port, 1 to 65535." : null);
          if (one !== undefined) add.mutate({ port: one });
        }}
      >
        <label style={{ flex: 1 }}>
          Port on 127.0.0.1
          <input
            inputMode="numeric"
            required
            value={port}
            onChange={(e) => setPort(e.target.value)}
            placeholder="8080"
          />
        </label>
        <button type="submit" disabled={add.isPending}>
          {add.isPending ? "Allowing…" : "Allow"}
        </button>
      </form>
      {failure && (
        <p className="error" role="alert">
          {failure}
        </p>
      )}
    </section>
  );
}

/** The settings once loaded: a skeleton meanwhile, one sentence when they cannot be. */
function WithSettings({ children }: { children: (data: Settings) => React.ReactNode }) {
  const settings = useSettings();
  if (settings.isPending) return <Loading />;
  if (settings.isError)
    return (
      <p className="error" role="alert">
        Could not load the settings: {errorMessage(settings.error)}
      </p>
    );
  return children(settings.data);
}

function OperatorSection() {
  return (
    <section className="card stack" aria-labelledby="operator-heading">
      <h2 id="operator-heading">Set by the operator</h2>
      <p className="muted">Read from the server&apos;s environment at start; change them there.</p>
      <WithSettings>
        {(settings) => (
          <dl className="stack" data-testid="operator-settings">
            <div>
              <dt>SIGNUP_MODE</dt>
              <dd>{settings.operator.signupMode ?? "not set (the setting above applies)"}</dd>
            </div>
            <div>
              <dt>APP_URL</dt>
              <dd>{settings.operator.appUrl}</dd>
            </div>
            <div>
              <dt>AUTH_RATE_LIMIT</dt>
              <dd>{settings.operator.authRateLimit}</dd>
            </div>
            <div>
              <dt>BRIDGE_SECRET</dt>
              <dd>
                {settings.operator.bridgeSecretSet
                  ? "set"
                  : "not set: stdio servers cannot be reached from the MCP route"}
              </dd>
            </div>
            <div>
              <dt>Stdio sandbox</dt>
              <dd>
                {settings.operator.sandbox
                  ? `${settings.operator.sandbox.state}: ${settings.operator.sandbox.detail}`
                  : "not reported by this version"}
              </dd>
            </div>
          </dl>
        )}
      </WithSettings>
    </section>
  );
}
