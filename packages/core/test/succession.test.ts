import { describe, expect, it } from "vitest";
import { ownerSuccession, type SuccessionMember } from "../src/accounts";

const m = (userId: string, role: SuccessionMember["role"], since: string, active = true): SuccessionMember => ({
  userId,
  role,
  since: new Date(since),
  active,
});

describe("ownerSuccession", () => {
  it("leaves a team alone while an active owner stays", () => {
    expect(ownerSuccession([m("a", "owner", "2020-01-01"), m("b", "owner", "2021-01-01")], "a")).toEqual({
      kind: "owned",
    });
  });

  it("picks the longest-standing active admin before any member", () => {
    const members = [
      m("gone", "owner", "2018-01-01"),
      m("old-member", "member", "2019-01-01"),
      m("off-admin", "admin", "2019-06-01", false),
      m("admin", "admin", "2020-01-01"),
      m("new-admin", "admin", "2021-01-01"),
    ];
    expect(ownerSuccession(members, "gone")).toEqual({ kind: "promote", userId: "admin", from: "admin" });
  });

  it("counts a deactivated owner as no owner, falls back to the longest-standing member, else nobody", () => {
    const members = [m("gone", "owner", "2018-01-01"), m("off", "owner", "2018-06-01", false)];
    expect(
      ownerSuccession([...members, m("y", "member", "2021-01-01"), m("x", "member", "2020-01-01")], "gone"),
    ).toEqual({ kind: "promote", userId: "x", from: "member" });
    expect(ownerSuccession(members, "gone")).toEqual({ kind: "ownerless" });
  });
});
