import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { closeJobs } from "@switchboard/runtime/jobs";
import { getAuth } from "~/server/auth";
import { signedInCaller, TEST_PASSWORD } from "./support/caller";

afterAll(async () => {
  await closeJobs();
  await disconnectDb();
});

const APP = process.env.APP_URL ?? "http://localhost:3000";

function signIn(email: string, password: string, ip: string) {
  return getAuth().handler(
    new Request(`${APP}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { origin: APP, "content-type": "application/json", "x-forwarded-for": ip, "user-agent": "audit-test/1" },
      body: JSON.stringify({ email, password }),
    }),
  );
}

describe("sign-ins in the audit trail", () => {
  it("records a sign-in and a failed one in the deployment's chain, with the address, never the password", async () => {
    const alice = await signedInCaller("audit-alice");
    const ip = `198.51.100.${randomBytes(1)[0]! % 250}`;
    const since = new Date();
    const wrong = `wrong-${randomBytes(6).toString("hex")}`;
    expect((await signIn(alice.email, wrong, ip)).status).toBe(401);
    expect((await signIn(alice.email, TEST_PASSWORD, ip)).status).toBe(200);

    const rows = await getDb().auditEvent.findMany({
      where: { chain: "deployment", targetLabel: alice.email, createdAt: { gte: since } },
      orderBy: { seq: "asc" },
    });
    expect(rows.map((r) => r.action)).toEqual(["auth.sign_in_failed", "auth.sign_in"]);
    expect(rows[0]).toMatchObject({ actorId: null, actorLabel: alice.email, ip, client: "audit-test/1" });
    expect(rows[1]).toMatchObject({ actorId: alice.userId, ip });
    expect(JSON.stringify(rows)).not.toContain(wrong);
    expect(JSON.stringify(rows)).not.toContain(TEST_PASSWORD);
  });

  it("lets a team's admin list and verify the team's chain, naming an edited record", async () => {
    const admin = await signedInCaller("audit-admin");
    const team = await admin.caller.team.create({ name: `Audit ${randomBytes(3).toString("hex")}` });
    await admin.caller.team.invite({ teamId: team.id, email: `x-${randomBytes(3).toString("hex")}@example.test` });
    const page = await admin.caller.audit.list({ teamId: team.id });
    expect(page.items.map((r) => r.action)).toEqual(["team.invite", "team.create"]);
    expect(page.total).toBe(2);
    expect(await admin.caller.audit.verify({ teamId: team.id })).toMatchObject({ checked: 2, broken: null });

    const first = page.items[1]!;
    await getDb().$executeRaw`UPDATE audit_events SET "actorLabel" = 'Mallory' WHERE id = ${first.id}`;
    const verdict = await admin.caller.audit.verify({ teamId: team.id });
    expect(verdict.broken).toMatchObject({ id: first.id, seq: 1, action: "team.create" });
    expect(verdict.broken!.message).toMatch(/changed after it was written/);
  });
});
