import path from "node:path";
import { describe, expect, it } from "vitest";
import { runClientSuite, scenarioPassed, type Requirements } from "./support/conformance";

/**
 * Our upstream OAuth client (core's `startAuthorization` / `finishAuthorization`) against the official suite's
 * client `auth/*` scenarios of each revision: metadata discovery and the metadata's issuer, Client ID Metadata
 * Documents before dynamic registration, scopes and step-up, token endpoint authentication, pre-registered
 * clients, offline access, a move to another authorization server (credentials keyed by issuer) and RFC 9207's
 * `iss`. The driver (`support/oauth-conformance-client.ts`) stands for the console and the member's browser.
 */
const gatewayDir = path.resolve(import.meta.dirname, "..");
const COMMAND = "node --import tsx test/support/oauth-conformance-client.ts";

describe.each<Requirements>(["2025-11-25", "2026-07-28"])("the suite's client auth scenarios at %s", (revision) => {
  it("all pass", { timeout: 600_000 }, async () => {
    const run = await runClientSuite(COMMAND, revision, "auth/", { cwd: gatewayDir });
    const rows = [...run.scenarios].map(
      ([name, r]) => `${scenarioPassed(r) ? "pass" : "FAIL"}  ${name} (${r.passed}/${r.passed + r.failed})`,
    );
    console.log(`client auth scenarios, ${revision}:\n${rows.join("\n")}`);
    const failing = [...run.scenarios].filter(([, r]) => !scenarioPassed(r)).map(([name]) => name);
    expect(
      failing.map((name) => `${name}: ${(run.failures.get(name) ?? []).join("; ")}`),
      "scenarios failing",
    ).toEqual([]);
    // The 2026-07-28 set is the larger one (iss, migration, offline access): the list is not empty by mistake.
    expect(run.scenarios.size).toBeGreaterThanOrEqual(revision === "2026-07-28" ? 25 : 13);
  });
});
