import { describe, expect, it } from "vitest";
import {
  isTeamRole,
  leavesTeamWithoutOwner,
  memberScope,
  passwordProblem,
  roleChangeProblem,
  slugProblem,
  slugSchema,
  slugify,
} from "../src/accounts";

const common = new Set(["password", "password1234", "qwertyuiopas"]);
const ctx = { isCommon: (p: string) => common.has(p) };

describe("team roles", () => {
  it("accepts exactly owner, admin and member", () => {
    expect(["owner", "admin", "member"].every(isTeamRole)).toBe(true);
    for (const odd of ["admin,member", "Admin", " owner", "", "superadmin", null, 1])
      expect(isTeamRole(odd)).toBe(false);
  });

  it("lets only an owner grant or take away the owner role", () => {
    expect(roleChangeProblem({ actor: "admin", from: "member", to: "owner" })).toMatch(/Only an owner/);
    expect(roleChangeProblem({ actor: "admin", from: "owner", to: "member" })).toMatch(/Only an owner/);
    expect(roleChangeProblem({ actor: "owner", from: "member", to: "owner" })).toBeNull();
    expect(roleChangeProblem({ actor: "admin", from: "member", to: "admin" })).toBeNull();
    expect(roleChangeProblem({ actor: "member", from: "member", to: "admin" })).toMatch(/admin/);
  });
});

describe("memberScope", () => {
  it("lets owners and admins see everyone's rows and a member only their own", () => {
    expect(memberScope({ userId: "u1", role: "owner" })).toBeUndefined();
    expect(memberScope({ userId: "u1", role: "admin" })).toBeUndefined();
    expect(memberScope({ userId: "u1", role: "member" })).toBe("u1");
    expect(memberScope({ userId: "u1", role: "Admin" })).toBe("u1");
  });
});

describe("leavesTeamWithoutOwner", () => {
  const counted = (n: number) => {
    const asked: number[] = [];
    return { asked, owners: async () => (asked.push(n), n) };
  };

  it("refuses the last owner giving up the role or leaving, and allows it when another owner remains", async () => {
    for (const to of ["admin", "member", null]) {
      expect(await leavesTeamWithoutOwner({ from: "owner", to }, counted(1).owners)).toBe(true);
      expect(await leavesTeamWithoutOwner({ from: "owner", to }, counted(2).owners)).toBe(false);
    }
  });

  it("does not count owners for a change that keeps the owner role or concerns someone else", async () => {
    for (const change of [
      { from: "owner", to: "owner" },
      { from: "admin", to: null },
      { from: "member", to: "admin" },
    ]) {
      const count = counted(1);
      expect(await leavesTeamWithoutOwner(change, count.owners)).toBe(false);
      expect(count.asked).toEqual([]);
    }
  });
});

describe("slugs (teams and server templates)", () => {
  it("refuses slugs with separators, dots, spaces or capitals", () => {
    for (const bad of ["Odd Slug/../x?", "a", "UPPER", "a--b", "-a", "a-", "a.b", "x".repeat(41)])
      expect(slugProblem(bad)).not.toBeNull();
    for (const good of ["ab", "platform-team", "team-2", "x".repeat(40)]) expect(slugProblem(good)).toBeNull();
  });

  it("proposes a slug from a name that passes the rule", () => {
    expect(slugify("Odd Slug/../x?")).toBe("odd-slug-x");
    expect(slugProblem(slugify("Équipe Plateforme"))).toBeNull();
    expect(slugProblem(slugify(`${"a".repeat(39)} b`))).toBeNull();
    expect(slugify("!!!")).toBe("");
  });

  it("folds accents and never ends a cut slug on a dash (core split accents into dashes; the console's template form dropped accented letters and kept the dash)", () => {
    expect(slugify("Équipe Données")).toBe("equipe-donnees");
    expect(slugify(`${"a".repeat(39)} b`)).toBe("a".repeat(39));
  });

  it("checks a typed slug as a form field with the same sentences", () => {
    expect(slugSchema.safeParse("  platform-team ").data).toBe("platform-team");
    expect(slugSchema.safeParse("a--b").error?.issues[0]?.message).toBe(
      "Use lowercase letters, digits and single dashes.",
    );
    expect(slugSchema.safeParse("a").error?.issues[0]?.message).toBe("Use at least 2 characters.");
  });
});

describe("password policy", () => {
  it("refuses passwords shorter than twelve characters", () => {
    expect(passwordProblem("short-pass1", ctx)).toMatch(/at least 12/);
    expect(passwordProblem("long-enough-pass", ctx)).toBeNull();
  });

  it("refuses common passwords whatever their case", () => {
    expect(passwordProblem("Password1234", ctx)).toMatch(/commonly used/);
    expect(passwordProblem("QWERTYUIOPAS", ctx)).toMatch(/commonly used/);
  });

  it("refuses a password made of a few repeated characters", () => {
    expect(passwordProblem("aaaaaaaaaaaaaaaa", ctx)).toMatch(/too few characters/);
    expect(passwordProblem("abababababab", ctx)).toMatch(/too few characters/);
  });

  it("refuses a password containing the email's name part", () => {
    expect(passwordProblem("grace.hopper-1906", { ...ctx, email: "grace.hopper@example.test" })).toMatch(
      /email address/,
    );
  });

  it("refuses passwords over 128 characters, counted in characters not bytes", () => {
    expect(passwordProblem("é".repeat(128), ctx)).not.toMatch(/at most/);
    expect(passwordProblem("x1y2".repeat(33), ctx)).toMatch(/at most 128/);
  });
});
