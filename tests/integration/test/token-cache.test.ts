import { describe, expect, it } from "vitest";
import { getDb } from "@switchboard/db/client";
import { revokeAccessToken } from "@switchboard/db/queries/token";
import { liveEventsReady } from "@switchboard/runtime/live-events";
import { authenticate } from "../../../apps/gateway/src/auth/authenticate";
import { teamWithMember } from "../../../apps/web/test/support/console";

/**
 * The principal cache lives in the gateway; the changes that end access are made by the console. These tests
 * make the change through the console's own procedures and watch the gateway's cache let go.
 */
describe("the gateway's token cache", () => {
  it("holds an authenticated token through a database change nobody announced", async () => {
    const { member, team } = await teamWithMember();
    const { id, token } = await member.caller.token.create({ teamId: team.id, name: "laptop" });
    await liveEventsReady();
    await expect(authenticate({ db: getDb(), bearer: token })).resolves.toMatchObject({ tokenId: id });

    expect(await revokeAccessToken(getDb(), { userId: member.userId, teamId: team.id, tokenId: id })).toBeTruthy();
    // Cached for up to a minute: why the console must announce what it changes.
    await expect(authenticate({ db: getDb(), bearer: token })).resolves.toMatchObject({ tokenId: id });
  });

  it("records a token's last use off the request path, and the console lists it", async () => {
    const { member, team } = await teamWithMember();
    const { id, token } = await member.caller.token.create({ teamId: team.id, name: "laptop" });
    expect((await member.caller.token.list({ teamId: team.id })).find((t) => t.id === id)).toMatchObject({
      lastUsedAt: null,
    });
    await expect(authenticate({ db: getDb(), bearer: token })).resolves.toMatchObject({ tokenId: id });
    await expect
      .poll(async () => (await member.caller.token.list({ teamId: team.id })).find((t) => t.id === id)!.lastUsedAt)
      .toBeInstanceOf(Date);
  });

  it("drops a token the member revokes in the console", async () => {
    const { member, team } = await teamWithMember();
    const { id, token } = await member.caller.token.create({ teamId: team.id, name: "laptop" });
    await liveEventsReady();
    await expect(authenticate({ db: getDb(), bearer: token })).resolves.toMatchObject({ tokenId: id });

    await member.caller.token.revoke({ teamId: team.id, tokenId: id });
    await expect.poll(() => authenticate({ db: getDb(), bearer: token }), { timeout: 10_000 }).toBeNull();
  });

  it("drops a member's tokens when an admin removes them from the team in the console", async () => {
    const { admin, member, team } = await teamWithMember();
    const { token } = await member.caller.token.create({ teamId: team.id, name: "laptop" });
    await liveEventsReady();
    await expect(authenticate({ db: getDb(), bearer: token })).resolves.toMatchObject({ userId: member.userId });

    const membershipId = (await admin.caller.team.members({ teamId: team.id })).items.find(
      (m) => m.user.email === member.email,
    )!.id;
    await admin.caller.team.removeMember({ teamId: team.id, memberId: membershipId });
    await expect.poll(() => authenticate({ db: getDb(), bearer: token }), { timeout: 10_000 }).toBeNull();
  });
});
