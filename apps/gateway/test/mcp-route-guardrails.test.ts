import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { GUARDRAIL_BLOCKED_CODE } from "@switchboard/core/guardrails";
import { demoServer } from "@switchboard/core/testing/demo-server";
import { setInstallationGuardrails } from "@switchboard/db/queries/governance";
import { forgetGuardrailSettings, GUARDRAIL_AUDIT_ACTION } from "../src/mcp/guardrails";
import { routeMetrics } from "../src/metrics";
import { connectClient } from "./support/mcp";
import { startRouteTeam, stopRouteTeam, type RouteTeam } from "./support/route-team";

/**
 * Guardrails through the real route: an installation's settings decide what a member's call sends upstream and
 * what comes back, and the request log and the audit trail hold the findings but never a planted value.
 */

// The route's metrics exist only when an operator asks for them.
vi.hoisted(() => {
  process.env.METRICS_TOKEN = "guardrails-metrics-token-0123456789";
});

const TOKEN =
  /* a made-up token in GitHub's format, split so secret scanners do not take it for a leak */ "ghp_" +
  "wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx";
const CARD = "4111 1111 1111 1111";
const IBAN = "DE89 3704 0044 0532 0130 00";
const EMAIL = "jane.doe@example.com";
const PLANTED = [TOKEN, CARD, IBAN, EMAIL];

/** What the upstream's `echo_note` received. */
const received: unknown[] = [];

let ctx: RouteTeam;

beforeAll(async () => {
  const demo = demoServer();
  ctx = await startRouteTeam(() => {
    const server = demo();
    server.registerTool("echo_note", { inputSchema: { note: z.string() } }, async ({ note }) => {
      received.push(note);
      return { content: [{ type: "text", text: `got: ${note}` }] };
    });
    server.registerTool("account", { description: "An account" }, async () => ({
      content: [{ type: "text", text: `token ${TOKEN}` }],
      structuredContent: { holder: { iban: IBAN } },
    }));
    server.registerResource("deploy-key", "data://deploy-key", { mimeType: "text/plain" }, async (uri) => ({
      contents: [{ uri: uri.href, mimeType: "text/plain", text: `key ${TOKEN}` }],
    }));
    return server;
  });
  await setInstallationGuardrails(ctx.db, ctx.installation.id, {
    credentials: "flag",
    card: "redact",
    iban: "redact",
    email: "block",
  });
  forgetGuardrailSettings();
}, 60_000);

afterAll(async () => {
  await stopRouteTeam(ctx?.upstream);
});

describe("guardrails on the route", () => {
  it("redacts, flags and blocks as the installation says; the log and the audit trail never hold the value", async () => {
    const token = await ctx.newToken("guardrails");
    const { client } = await connectClient(token);
    try {
      // redact (card) in arguments: the upstream gets the redacted note.
      const redacted = await client.callTool({ name: "my-demo-echo_note", arguments: { note: `pay ${CARD}` } });
      expect(received).toEqual(["pay [redacted:card]"]);
      expect(redacted.content).toEqual([{ type: "text", text: "got: pay [redacted:card]" }]);

      // flag (credentials) passes the result as it came; redact (IBAN) rewrites its structured content.
      const account = await client.callTool({ name: "my-demo-account", arguments: {} });
      expect(account.content).toEqual([{ type: "text", text: `token ${TOKEN}` }]);
      expect(account.structuredContent).toEqual({ holder: { iban: "[redacted:iban]" } });

      // block (email) in arguments: refused before the upstream sees it.
      const error = await client
        .callTool({ name: "my-demo-echo_note", arguments: { note: `mail ${EMAIL}` } })
        .catch((e: unknown) => e as { code?: number; message?: string });
      expect(error).toMatchObject({ code: GUARDRAIL_BLOCKED_CODE });
      expect((error as { message: string }).message).toContain(
        "This call was blocked by a guardrail because its arguments contain an email address.",
      );
      expect(received).toHaveLength(1);

      // Resource contents are scanned too (credentials: flag).
      const uri = (await client.listResources()).resources.find((r) => r.name === "deploy-key")!.uri;
      const read = await client.readResource({ uri });
      expect(read.contents[0]).toMatchObject({ text: `key ${TOKEN}` });
    } finally {
      await client.close();
    }

    const rowsOf = () => ctx.db.toolCallLog.findMany({ where: { installationId: ctx.installation.id } });
    await expect.poll(async () => (await rowsOf()).length).toBeGreaterThanOrEqual(4);
    const rows = await rowsOf();
    const byTarget = (target: string, outcome?: string) =>
      rows.filter((r) => r.target === target && (!outcome || r.outcome === outcome));
    expect(byTarget("echo_note", "success")[0]!.guardrailFindings).toEqual([
      { category: "card", rule: "card-luhn", where: "arguments", path: "$.note", count: 1, action: "redact" },
    ]);
    expect(byTarget("echo_note", "blocked")[0]!.guardrailFindings).toEqual([
      { category: "email", rule: "email", where: "arguments", path: "$.note", count: 1, action: "block" },
    ]);
    expect(byTarget("account")[0]!.guardrailFindings).toEqual([
      {
        category: "credentials",
        rule: "@secretlint/secretlint-rule-github",
        where: "result",
        path: "$.content[0].text",
        count: 1,
        action: "flag",
      },
      {
        category: "iban",
        rule: "iban-mod97",
        where: "result",
        path: "$.structuredContent.holder.iban",
        count: 1,
        action: "redact",
      },
    ]);
    expect(byTarget("data://deploy-key")[0]!.guardrailFindings).toMatchObject([
      { category: "credentials", where: "resource", action: "flag" },
    ]);
    const logged = JSON.stringify(rows);
    for (const value of PLANTED) expect(logged).not.toContain(value);

    const auditOf = () =>
      ctx.db.auditEvent.findMany({ where: { teamId: ctx.team.id, action: GUARDRAIL_AUDIT_ACTION } });
    await expect.poll(async () => (await auditOf()).length).toBeGreaterThanOrEqual(4);
    const audit = await auditOf();
    expect(audit.map((a) => (a.detail as { where: string }).where).sort()).toEqual([
      "arguments",
      "arguments",
      "resource",
      "result",
    ]);
    expect(audit.every((a) => a.actorId === ctx.alice.id && a.targetId === ctx.installation.id)).toBe(true);
    const audited = JSON.stringify(audit);
    for (const value of PLANTED) expect(audited).not.toContain(value);

    // The metric counts matches by installation, category, action and where.
    const metric = await routeMetrics()!.registry.getSingleMetric("switchboard_guardrail_findings_total")!.get();
    const count = (labels: Record<string, string>) =>
      metric.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value;
    expect(count({ installation: "my-demo", category: "card", action: "redact", where: "arguments" })).toBe(1);
    expect(count({ installation: "my-demo", category: "email", action: "block", where: "arguments" })).toBe(1);
    expect(count({ installation: "my-demo", category: "credentials", action: "flag", where: "resource" })).toBe(1);
  }, 60_000);
});
