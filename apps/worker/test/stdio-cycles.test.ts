import { describe, expect, it } from "vitest";
import { describeProcesses } from "@switchboard/testing/processes";
import { stdioCycles } from "./support/stdio-cycles";

/**
 * `npm run chaos`'s stdio drill at CI scale: a few start/stop cycles through the supervisor in the sandbox (some
 * killed during set-up), two sandbox hosts SIGKILLed (during the outbound probe, during a sandbox's set-up), then
 * a host started again as the worker would be. A real process listing must find nothing left of any of them.
 */
describe("stdio servers started and stopped, some killed mid-way", () => {
  it("leaves no sandbox or server process behind, and every cycle ends", async () => {
    const result = await stdioCycles({ cycles: 10, hostKills: 2, parallel: 2 });
    expect(describeProcesses(result.orphans)).toBe("");
    expect(result).toMatchObject({ hung: 0, failed: 0, attempted: 12, succeeded: 12 });
  }, 120_000);
});
