import { afterAll, describe, expect, it } from "vitest";
import { AUDIT_GENESIS_HASH } from "@switchboard/core/audit";
import { disconnectDb, getDb } from "../src/client";
import { appendAudit, listAudit, pruneAudit, verifyAudit } from "../src/queries/audit";
import { makeTeam, makeUser } from "../src/testing/factories";

afterAll(() => disconnectDb());

async function teamWith(n: number) {
  const db = getDb();
  const user = await makeUser(db);
  const team = await makeTeam(db, user);
  for (let i = 0; i < n; i++) {
    await appendAudit(db, {
      teamId: team.id,
      actorId: user.id,
      actorLabel: `${user.name} <${user.email}>`,
      action: "installation.edit",
      targetType: "installation",
      targetId: `inst-${i}`,
      targetLabel: `Server ${i}`,
      before: { name: `old ${i}`, url: "https://a.example/mcp", apiKey: "sk-live-123456" },
      after: { name: `new ${i}`, url: "https://a.example/mcp", values: { API_KEY: "sk-live-abcdef", REGION: "eu" } },
      ip: "203.0.113.9",
      client: "Mozilla/5.0",
    });
  }
  return { db, user, team };
}

describe("audit trail", () => {
  it("chains each team's records from the genesis hash and never stores a secret", async () => {
    const { db, team } = await teamWith(3);
    const rows = await db.auditEvent.findMany({ where: { teamId: team.id }, orderBy: { seq: "asc" } });
    expect(rows.map((r) => r.seq)).toEqual([1, 2, 3]);
    expect(rows[0]!.prevHash).toBe(AUDIT_GENESIS_HASH);
    expect(rows[1]!.prevHash).toBe(rows[0]!.hash);
    expect(rows[2]!.prevHash).toBe(rows[1]!.hash);
    const text = JSON.stringify(rows);
    expect(text).not.toContain("sk-live");
    expect(rows[0]!.after).toMatchObject({ values: { API_KEY: "[redacted]", REGION: "[redacted]" } });
    expect(await verifyAudit(db, team.id)).toMatchObject({ checked: 3, broken: null });
  });

  it("names the edited row when one record is changed in the database", async () => {
    const { db, team } = await teamWith(5);
    const third = await db.auditEvent.findFirstOrThrow({ where: { teamId: team.id, seq: 3 } });
    await db.$executeRaw`UPDATE audit_events SET "targetLabel" = 'Someone else' WHERE id = ${third.id}`;
    const result = await verifyAudit(db, team.id);
    expect(result.broken).toMatchObject({ id: third.id, seq: 3, reason: "edited" });
    expect(result.checked).toBe(2);
  });

  it("names the record after a deleted one", async () => {
    const { db, team } = await teamWith(4);
    const [second, third] = await db.auditEvent.findMany({
      where: { teamId: team.id, seq: { in: [2, 3] } },
      orderBy: { seq: "asc" },
    });
    await db.auditEvent.delete({ where: { id: second!.id } });
    expect((await verifyAudit(db, team.id)).broken).toMatchObject({ id: third!.id, reason: "missing" });
  });

  it("keeps one chain under concurrent writers: no fork, no gap", async () => {
    const { db, user, team } = await teamWith(0);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        appendAudit(db, { teamId: team.id, actorId: user.id, actorLabel: "x", action: `concurrent.${i}` }),
      ),
    );
    const rows = await db.auditEvent.findMany({ where: { teamId: team.id }, orderBy: { seq: "asc" } });
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(new Set(rows.map((r) => r.prevHash)).size).toBe(20);
    expect(await verifyAudit(db, team.id)).toMatchObject({ checked: 20, broken: null });
  });

  it("prunes old records in batches behind an anchor, and the rest still verifies and keeps growing", async () => {
    const { db, user, team } = await teamWith(7);
    const cutoff = new Date(Date.now() + 1000);
    // Records' createdAt is part of their hash, so "old" is chosen by cutoff over all but the newest two.
    const seven = await db.auditEvent.findFirstOrThrow({ where: { teamId: team.id, seq: 6 } });
    const deleted = await pruneAudit(db, team.id, seven.createdAt, 2);
    expect(deleted).toBeGreaterThanOrEqual(1);
    const anchor = await db.auditAnchor.findUniqueOrThrow({ where: { chain: `team:${team.id}` } });
    const remaining = await db.auditEvent.findMany({ where: { teamId: team.id }, orderBy: { seq: "asc" } });
    expect(anchor.seq).toBe(remaining[0]!.seq - 1);
    expect(anchor.prunedCount).toBe(deleted);
    expect(await verifyAudit(db, team.id)).toMatchObject({ broken: null, pruned: deleted });

    // Pruning everything older than the future keeps the newest record, so the next append still links.
    await pruneAudit(db, team.id, cutoff);
    expect(await db.auditEvent.count({ where: { teamId: team.id } })).toBe(1);
    await appendAudit(db, { teamId: team.id, actorId: user.id, actorLabel: "x", action: "after.prune" });
    const verification = await verifyAudit(db, team.id);
    expect(verification).toMatchObject({ checked: 2, broken: null, pruned: 6 });
  });

  it("lists a team's trail newest first with filters, and nothing of another team", async () => {
    const a = await teamWith(3);
    const b = await teamWith(2);
    const page = await listAudit(a.db, { teamId: a.team.id, limit: 2 });
    expect(page.items.map((r) => r.seq)).toEqual([3, 2]);
    expect(page.nextCursor).not.toBeNull();
    const filtered = await listAudit(a.db, { teamId: a.team.id, target: "Server 1", limit: 10 });
    expect(filtered.items.map((r) => r.targetLabel)).toEqual(["Server 1"]);
    const other = await listAudit(a.db, { teamId: b.team.id, limit: 10 });
    expect(other.items.every((r) => r.teamId === b.team.id)).toBe(true);
  });
});
