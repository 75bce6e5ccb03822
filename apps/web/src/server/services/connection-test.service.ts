import "server-only";
import { MissingConfigError, resolveLaunch, type ConfigField } from "@switchboard/core/config";
import { humanizeError } from "@switchboard/core/errors";
import { testConnection, type ConnectionTestResult } from "@switchboard/core/probe";
import type { Db } from "@switchboard/db/client";
import { upstreamEgressFetch, urlRefusal } from "@switchboard/runtime/egress";
import type { TemplateInput } from "./catalogue.service";
import { assertStdioAllowed } from "./deployment.service";
import { testStdioThroughWorker } from "./connection-test-job";

const fail = (message: string, transport: ConnectionTestResult["transport"] = null): ConnectionTestResult => ({
  ok: false,
  transport,
  requiresOAuth: false,
  protocolVersion: null,
  serverName: null,
  serverVersion: null,
  toolCount: 0,
  totalTokens: 0,
  message,
  detail: null,
});

/**
 * Test connection before installing: the draft's launch with the values typed in the form (team values, and the
 * admin's own values for member settings, used for this test only and not stored). A remote URL is tried from
 * here through the egress rules; a local command only ever runs in the worker's sandbox (a worker job).
 */
export async function testDraft({
  db,
  teamId,
  template,
  values,
}: {
  db: Db;
  teamId: string;
  template: TemplateInput;
  values: Record<string, string>;
}): Promise<ConnectionTestResult> {
  const fields: ConfigField[] = template.fields.map((f) => ({ ...f, defaultValue: f.defaultValue ?? null }));
  const team = Object.fromEntries(
    Object.entries(values).filter(([k]) => fields.some((f) => f.key === k && f.tier === "team")),
  );
  const mine = Object.fromEntries(
    Object.entries(values).filter(([k]) => fields.some((f) => f.key === k && f.tier === "user")),
  );
  if (template.transport === "stdio") {
    const envKeys = template.fields.filter((f) => f.kind === "env").map((f) => f.key);
    await assertStdioAllowed(db, { teamId, command: template.command ?? "", args: template.args, envKeys });
  } else {
    const refusal = template.url ? urlRefusal(template.url) : "A remote server needs a URL.";
    if (refusal) return fail(refusal);
  }
  let launch;
  try {
    launch =
      template.transport === "stdio"
        ? resolveLaunch({
            template: { transport: "stdio", command: template.command ?? "", args: template.args },
            fields,
            teamValues: team,
            userValues: mine,
          })
        : resolveLaunch({
            template: { transport: template.transport, url: template.url ?? "" },
            fields,
            teamValues: team,
            userValues: mine,
          });
  } catch (err) {
    if (err instanceof MissingConfigError)
      return fail(`Fill in ${err.keys.join(", ")} to test (member settings are used for this test only).`);
    return fail(humanizeError(err).summary);
  }
  if (launch.transport === "stdio")
    return testStdioThroughWorker({
      teamId,
      launch,
      envKeys: template.fields.filter((f) => f.kind === "env").map((f) => f.key),
    });
  return testConnection(launch, { fetch: upstreamEgressFetch() });
}
