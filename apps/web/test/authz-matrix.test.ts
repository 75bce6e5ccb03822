/**
 * Every tRPC procedure x every actor, against a real database: the procedures are read from `appRouter` at test
 * time, so a procedure added without an entry in `support/authz-matrix.ts` fails here (see that file to add one).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disconnectDb } from "@switchboard/db/client";
import { closeJobs } from "@switchboard/runtime/jobs";
import { appRouter } from "~/server/trpc/root";
import { ACTORS, createWorld, MATRIX, outcomeOf, type World } from "./support/authz-matrix";

const procedures = Object.keys(appRouter._def.procedures).sort();

let world: World;

beforeAll(async () => {
  world = await createWorld();
});

afterAll(async () => {
  await closeJobs();
  await disconnectDb();
});

describe("authorization matrix", () => {
  it("has an entry for every procedure of the router, and none for a procedure that is gone", () => {
    expect(procedures.length).toBeGreaterThan(40);
    expect(
      procedures.filter((p) => !(p in MATRIX)),
      "procedures without a matrix entry",
    ).toEqual([]);
    expect(
      Object.keys(MATRIX).filter((p) => !procedures.includes(p)),
      "matrix entries without a procedure",
    ).toEqual([]);
  });

  it.each(procedures)("%s answers each actor as the matrix says", async (path) => {
    const entry = MATRIX[path];
    expect(entry, `no matrix entry for ${path}: add one to test/support/authz-matrix.ts`).toBeDefined();
    const seen: Record<string, string> = {};
    for (const actor of ACTORS) {
      const input = entry!.input ? await entry!.input(world, actor) : undefined;
      seen[actor] = await outcomeOf(world.callers[actor], path, input);
    }
    expect(seen).toEqual(entry!.expect);
  });
});
