import { describe, expect, it } from "vitest";
import { groupNameProblem, identityGroupPlan, teamsForGroups, type IdentityGroupMapping } from "../src/accounts";

const mappings: IdentityGroupMapping[] = [
  { groupName: "Engineering", teamId: "eng", role: "member" },
  { groupName: "eng-leads", teamId: "eng", role: "admin" },
  { groupName: "Platform Owners", teamId: "eng", role: "owner" },
  { groupName: "Engineering", teamId: "ops", role: "member" },
  { groupName: "Sales", teamId: "sales", role: "member" },
];

describe("groups to teams and roles", () => {
  it("gives the team of each group the person is in, with the mapped role", () => {
    expect(teamsForGroups(mappings, ["Sales"])).toEqual(new Map([["sales", "member"]]));
    expect(teamsForGroups(mappings, ["Engineering"])).toEqual(
      new Map([
        ["eng", "member"],
        ["ops", "member"],
      ]),
    );
    expect(teamsForGroups(mappings, ["Unmapped"])).toEqual(new Map());
  });

  it("takes the highest role when several groups map to one team, in any order", () => {
    expect(teamsForGroups(mappings, ["Engineering", "eng-leads"]).get("eng")).toBe("admin");
    expect(teamsForGroups(mappings, ["eng-leads", "Engineering"]).get("eng")).toBe("admin");
    expect(teamsForGroups(mappings, ["Platform Owners", "eng-leads", "Engineering"]).get("eng")).toBe("owner");
    expect(teamsForGroups([...mappings].reverse(), ["eng-leads", "Platform Owners"]).get("eng")).toBe("owner");
  });

  it("matches group names whatever their case or surrounding spaces", () => {
    expect(teamsForGroups(mappings, ["  engineering ", "ENG-LEADS"]).get("eng")).toBe("admin");
  });

  it("adds missing memberships, changes roles both ways and removes mapped teams no group gives", () => {
    const plan = identityGroupPlan({
      mappings,
      groups: ["Engineering"],
      memberships: [
        { teamId: "eng", role: "admin" },
        { teamId: "sales", role: "member" },
      ],
    });
    expect(plan).toEqual({
      add: [{ teamId: "ops", role: "member" }],
      change: [{ teamId: "eng", from: "admin", to: "member" }],
      remove: [{ teamId: "sales", role: "member" }],
    });
    expect(
      identityGroupPlan({ mappings, groups: ["eng-leads"], memberships: [{ teamId: "eng", role: "member" }] }),
    ).toEqual({ add: [], change: [{ teamId: "eng", from: "member", to: "admin" }], remove: [] });
  });

  it("leaves memberships of teams that no mapping names alone", () => {
    const plan = identityGroupPlan({
      mappings,
      groups: [],
      memberships: [
        { teamId: "manual", role: "owner" },
        { teamId: "eng", role: "member" },
      ],
    });
    expect(plan).toEqual({ add: [], change: [], remove: [{ teamId: "eng", role: "member" }] });
  });

  it("changes nothing when the memberships already follow the groups", () => {
    expect(
      identityGroupPlan({
        mappings,
        groups: ["Sales", "eng-leads"],
        memberships: [
          { teamId: "sales", role: "member" },
          { teamId: "eng", role: "admin" },
        ],
      }),
    ).toEqual({ add: [], change: [], remove: [] });
  });

  it("refuses an empty or overlong group name", () => {
    expect(groupNameProblem("  ")).toMatch(/group's name/);
    expect(groupNameProblem("x".repeat(257))).toMatch(/at most 256/);
    expect(groupNameProblem("Engineering")).toBeNull();
  });
});
