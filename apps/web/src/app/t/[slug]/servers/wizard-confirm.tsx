"use client";

import { useQuery } from "@tanstack/react-query";
import { TRANSPORT_LABELS } from "@switchboard/core/config";
import { namespaceToolName } from "@switchboard/core/names";
import { useTRPC } from "~/trpc/react";
import type { TeamSettings } from "./wizard-configure";
import type { WizardServer } from "./wizard-server";
import { FormError } from "~/components/ui/form-error";

const n = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/**
 * What installing creates, before anything is written: the server (name, slug and its tool names, where the
 * definition comes from), how it launches (transport, URL or command), the team values, and one instance per
 * member of the team.
 */
export function ConfirmStep({
  teamId,
  server,
  settings,
  oauthClient,
  pending,
  error,
  onBack,
  onInstall,
}: {
  teamId: string;
  server: WizardServer;
  settings: TeamSettings;
  oauthClient: { clientId: string; secret: boolean } | null;
  pending: boolean;
  error: unknown;
  onBack: () => void;
  onInstall: () => void;
}) {
  const trpc = useTRPC();
  const teams = useQuery(trpc.team.list.queryOptions(undefined, { staleTime: 30_000 }));
  const members = teams.data?.find((t) => t.id === teamId)?.memberCount;
  const teamFields = server.fields.filter((f) => f.tier === "team");
  const { values } = settings;
  return (
    <div className="stack" data-testid="wizard-summary">
      <table style={{ width: "100%", tableLayout: "fixed", overflowWrap: "anywhere" }}>
        <tbody>
          <tr>
            <th scope="row">Name</th>
            <td>{settings.name}</td>
          </tr>
          <tr>
            <th scope="row">Slug</th>
            <td>
              <code>{settings.slug}</code>{" "}
              <span className="muted small">
                (tools named <code>{namespaceToolName(settings.slug, "tool")}</code>)
              </span>
            </td>
          </tr>
          <tr>
            <th scope="row">Definition</th>
            <td>
              {server.id
                ? `${server.name} (${server.slug}), from your catalogue`
                : `New: ${server.name} (${server.slug}), added to your catalogue when you install`}
            </td>
          </tr>
          <tr>
            <th scope="row">Transport</th>
            <td>{TRANSPORT_LABELS[server.transport]}</td>
          </tr>
          <tr>
            <th scope="row">{server.transport === "stdio" ? "Command" : "URL"}</th>
            <td style={{ overflowWrap: "anywhere" }}>
              <code>{server.transport === "stdio" ? [server.command, ...server.args].join(" ") : server.url}</code>
            </td>
          </tr>
          {teamFields.map((f) => (
            <tr key={f.key}>
              <th scope="row">{f.label || f.key}</th>
              <td>
                {values[f.key] ? (
                  f.secret ? (
                    "•••••• (secret)"
                  ) : (
                    values[f.key]
                  )
                ) : (
                  <span className="muted">{f.defaultValue ? `default: ${f.defaultValue}` : "not set"}</span>
                )}
              </td>
            </tr>
          ))}
          <tr>
            <th scope="row">Request log</th>
            <td>{settings.requestLogging ? "on" : "off"}</td>
          </tr>
          {server.oauth && (
            <tr>
              <th scope="row">OAuth client</th>
              <td>
                {oauthClient ? (
                  <>
                    <code>{oauthClient.clientId}</code>
                    {oauthClient.secret ? " with a secret" : " (public, no secret)"}
                  </>
                ) : (
                  "registered dynamically"
                )}
              </td>
            </tr>
          )}
          <tr>
            <th scope="row">Instances</th>
            <td data-testid="wizard-instance-count">
              {members === undefined
                ? "One per member of the team"
                : `${n(members, "instance")}, one per member of the team`}
            </td>
          </tr>
        </tbody>
      </table>
      <p className="muted">
        Every member gets their own instance, which starts right away (or waits for their personal settings).
      </p>
      {Boolean(error) && <FormError error={error} />}
      <div className="row" style={{ justifyContent: "flex-end" }}>
        <button type="button" className="secondary" onClick={onBack}>
          Back
        </button>
        <button type="button" disabled={pending} onClick={onInstall}>
          {pending ? "Installing…" : "Install"}
        </button>
      </div>
    </div>
  );
}
