import { afterAll, describe, expect, it } from "vitest";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { seedInstallation } from "@switchboard/db/seed/catalogue";
import { closeJobs } from "@switchboard/runtime/jobs";
import { makeQueryClient } from "~/trpc/query-client";
import { seedHttpTemplate, strangerWithTeam, teamWithMember } from "./support/console";

afterAll(async () => {
  await closeJobs();
  await disconnectDb();
});

/**
 * A server component's prefetch runs the procedure in process, through the console's own query client: a stale
 * link (a removed server, another team's id) must fail on the first call, not after the retries meant for an
 * unreachable network.
 */
describe("the console's query client", () => {
  it("asks once when a server-side call answers NOT_FOUND (a stale or another team's id)", async () => {
    const { admin, team } = await teamWithMember();
    const other = await strangerWithTeam();
    const foreign = await seedInstallation(getDb(), { template: await seedHttpTemplate(other.team.id) });
    for (const installationId of ["ins_does_not_exist", foreign.id]) {
      const qc = makeQueryClient();
      let calls = 0;
      await qc.prefetchQuery({
        queryKey: ["installation", installationId],
        queryFn: () => {
          calls += 1;
          return admin.caller.installation.get({ teamId: team.id, installationId });
        },
      });
      const state = qc.getQueryState(["installation", installationId]);
      expect(state?.status).toBe("error");
      expect((state?.error as { code?: string }).code).toBe("NOT_FOUND");
      expect(calls).toBe(1);
    }
  });

  it("still retries a failure that may pass (a network error, a 5xx)", async () => {
    const qc = makeQueryClient();
    let calls = 0;
    await qc.prefetchQuery({
      queryKey: ["flaky"],
      queryFn: () => {
        calls += 1;
        if (calls < 2) throw Object.assign(new Error("fetch failed"), { data: { httpStatus: 503 } });
        return "ok";
      },
      retryDelay: 0,
    });
    expect(qc.getQueryData(["flaky"])).toBe("ok");
    expect(calls).toBe(2);
  });
});
