import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_GUARDRAILS } from "@switchboard/core/guardrails/rules";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { insertCallLogs } from "@switchboard/db/queries/call-log";
import { closeJobs } from "@switchboard/runtime/jobs";
import { strangerWithTeam, teamWithInstances } from "./support/console";

afterAll(async () => {
  await closeJobs();
  await disconnectDb();
});

const settings = { credentials: "redact", card: "block", iban: "off", email: "flag", phone: "off" } as const;

describe("the guardrails an admin sets", () => {
  it("starts from the defaults (credentials flagged, personal data off) and keeps what the admin saves", async () => {
    const { admin, team, installation } = await teamWithInstances();
    const input = { teamId: team.id, installationId: installation.id };
    expect(await admin.caller.governance.guardrails(input)).toEqual({
      settings: DEFAULT_GUARDRAILS,
      defaults: DEFAULT_GUARDRAILS,
    });
    expect(await admin.caller.governance.setGuardrails({ ...input, settings })).toEqual({
      settings,
      defaults: DEFAULT_GUARDRAILS,
    });
    expect((await admin.caller.governance.guardrails(input)).settings).toEqual(settings);
  });

  it("refuses an action that does not exist, and another team's server", async () => {
    const { admin, team, installation } = await teamWithInstances();
    await expect(
      admin.caller.governance.setGuardrails({
        teamId: team.id,
        installationId: installation.id,
        settings: { ...settings, card: "shout" as never },
      }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    const stranger = await strangerWithTeam();
    await expect(
      stranger.stranger.caller.governance.setGuardrails({
        teamId: stranger.team.id,
        installationId: installation.id,
        settings,
      }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(
      (await admin.caller.governance.guardrails({ teamId: team.id, installationId: installation.id })).settings,
    ).toEqual(DEFAULT_GUARDRAILS);
  });

  it("records each change in the audit trail with the settings before and after", async () => {
    const { admin, team, installation } = await teamWithInstances();
    await admin.caller.governance.setGuardrails({ teamId: team.id, installationId: installation.id, settings });
    const trail = await getDb().auditEvent.findMany({ where: { teamId: team.id, action: "governance.setGuardrails" } });
    expect(trail).toHaveLength(1);
    const asList = (s: Record<string, string>) => Object.entries(s).map(([category, action]) => ({ category, action }));
    expect(trail[0]).toMatchObject({ before: asList(DEFAULT_GUARDRAILS), after: asList(settings) });
  });

  it("shows a call's findings in its request log entry, without the value", async () => {
    const { admin, team, installation, adminsInstance } = await teamWithInstances();
    const finding = {
      category: "card",
      rule: "card-luhn",
      where: "arguments",
      path: "$.note",
      count: 1,
      action: "redact",
    } as const;
    await insertCallLogs(getDb(), [
      {
        teamId: team.id,
        installationId: installation.id,
        instanceId: adminsInstance.id,
        userId: admin.userId,
        tokenId: null,
        method: "tools/call",
        target: "echo",
        arguments: { note: "pay [redacted:card]" },
        resultSummary: null,
        resultBytes: 0,
        durationMs: 1,
        attempts: 1,
        outcome: "success",
        errorMessage: null,
        guardrailFindings: [finding],
      },
    ]);
    const row = await getDb().toolCallLog.findFirstOrThrow({ where: { installationId: installation.id } });
    const entry = await admin.caller.ops.requestLogEntry({ teamId: team.id, callId: row.id });
    expect(entry.guardrailFindings).toEqual([finding]);
  });
});
