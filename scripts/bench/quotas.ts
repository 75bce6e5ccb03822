/**
 * Quotas benchmark: the same tools/call of an echo tool through one route process in the same run, for a team
 * without limits (the gate reads its cached empty list and counts nothing) and a team with three limits that
 * cover the call (member per minute, token per hour, tool per day, none ever reached): the echo tool is not
 * read-only, so each call takes six counters in Redis. What quotas cost on the hot path, as latency with one
 * client and as the route's CPU per call with 32.
 */
import { replaceTeamToolQuotas } from "@switchboard/db/queries/quota";
import { runOnOff } from "./on-off";

const NEVER_REACHED = 10_000_000;

export async function run(): Promise<void> {
  await runOnOff({
    name: "quotas",
    describe: () => "a team without limits and one with three",
    async turnOn(db, { on }) {
      const limit = { installationId: null, toolName: null, max: NEVER_REACHED, writeMax: NEVER_REACHED };
      await replaceTeamToolQuotas(db, {
        teamId: on.teamId,
        quotas: [
          { ...limit, subject: "member", window: "minute" },
          { ...limit, subject: "token", window: "hour" },
          { ...limit, subject: "tool", window: "day", installationId: on.installationId, toolName: "echo" },
        ],
      });
    },
  });
}
