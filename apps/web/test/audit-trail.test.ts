/**
 * The audit trail covers every mutation: each mutating procedure of the router (read from `appRouter` at test time)
 * is called once as an actor the authorization matrix allows, and must leave a record of itself, by that actor,
 * with no secret in it; or be on the explicit exemption list with its reason.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { closeJobs } from "@switchboard/runtime/jobs";
import { AUDIT_EXEMPT } from "~/server/audit/middleware";
import { appRouter } from "~/server/trpc/root";
import { ACTORS, createWorld, MATRIX, outcomeOf, type World } from "./support/authz-matrix";

const mutations = Object.entries(appRouter._def.procedures)
  .filter(([, p]) => (p as { _def: { type: string } })._def.type === "mutation")
  .map(([path]) => path)
  .sort();

/**
 * Mutations the matrix only calls with inputs that fail (the real call would change the whole run's deployment, or
 * needs a provider or registry this test does not start): here a failed call must leave no record. Their success
 * is recorded by the same middleware as every other mutation.
 */
const ONLY_FAILING_CALLS = new Set([
  "deployment.setSignupMode",
  "installation.setOAuthClient",
  "invitation.accept",
  "oauth.start",
  "registry.importFromRegistry",
]);

let world: World;

beforeAll(async () => {
  world = await createWorld();
});

afterAll(async () => {
  await closeJobs();
  await disconnectDb();
});

describe("audit trail coverage", () => {
  it("exempts only mutations that exist", () => {
    expect(Object.keys(AUDIT_EXEMPT).filter((p) => !mutations.includes(p))).toEqual([]);
    expect(mutations.length).toBeGreaterThan(30);
  });

  it.each(mutations.filter((p) => !(p in AUDIT_EXEMPT)))("%s leaves a record", async (path) => {
    const entry = MATRIX[path]!;
    const failing = ONLY_FAILING_CALLS.has(path);
    const actor = failing
      ? ACTORS.findLast((a) => a !== "anonymous")
      : ACTORS.find((a) => a !== "anonymous" && entry.expect[a] === "ok");
    expect(actor, `no actor may call ${path}: add it to ONLY_FAILING_CALLS with the reason`).toBeDefined();
    const since = new Date();
    const input = entry.input ? await entry.input(world, actor!) : undefined;
    const outcome = await outcomeOf(world.callers[actor!], path, input);
    const records = await getDb().auditEvent.findMany({ where: { action: path, createdAt: { gte: since } } });
    if (failing) {
      expect(outcome).not.toBe("ok");
      expect(records, `${path} failed but left a record`).toEqual([]);
      return;
    }
    expect(outcome).toBe("ok");
    expect(records.length, `${path} wrote no audit record`).toBeGreaterThan(0);
    const text = JSON.stringify(records);
    // Values the matrix world uses as configuration and secrets never reach the trail.
    expect(text).not.toMatch(/sk-|secret-value|"X-Api-Key":"a"/);
  });
});
