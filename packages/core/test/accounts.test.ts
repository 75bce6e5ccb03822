import { describe, expect, it } from "vitest";
import { isTeamRole, passwordProblem, roleChangeProblem, slugify, teamSlugProblem } from "../src/accounts";

const common = new Set(["password", "password1234", "qwertyuiopas"]);
const ctx = { isCommon: (p: string) => common.has(p) };

describe("team roles", () => {
  it("accepts exactly owner, admin and member", () => {
    expect(["owner", "admin", "member"].every(isTeamRole)).toBe(true);
    for (const odd of ["admin,member", "Admin", " owner", "", "superadmin", null, 1]) expect(isTeamRole(odd)).toBe(false);
  });

  it("lets only an owner grant or take away the owner role", () => {
    expect(roleChangeProblem({ actor: "admin", from: "member", to: "owner" })).toMatch(/Only an owner/);
    expect(roleChangeProblem({ actor: "admin", from: "owner", to: "member" })).toMatch(/Only an owner/);
    expect(roleChangeProblem({ actor: "owner", from: "member", to: "owner" })).toBeNull();
    expect(roleChangeProblem({ actor: "admin", from: "member", to: "admin" })).toBeNull();
    expect(roleChangeProblem({ actor: "member", from: "member", to: "admin" })).toMatch(/admin/);
  });
});

describe("team slugs", () => {
  it("refuses slugs with separators, dots, spaces or capitals", () => {
    for (const bad of ["Odd Slug/../x?", "a", "UPPER", "a--b", "-a", "a-", "a.b", "x".repeat(41)]) expect(teamSlugProblem(bad)).not.toBeNull();
    for (const good of ["ab", "platform-team", "team-2", "x".repeat(40)]) expect(teamSlugProblem(good)).toBeNull();
  });

  it("proposes a slug from a name that passes the rule", () => {
    expect(slugify("Odd Slug/../x?")).toBe("odd-slug-x");
    expect(teamSlugProblem(slugify("Équipe Plateforme"))).toBeNull();
    expect(teamSlugProblem(slugify(`${"a".repeat(39)} b`))).toBeNull();
    expect(slugify("!!!")).toBe("");
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
    expect(passwordProblem("grace.hopper-1906", { ...ctx, email: "grace.hopper@example.test" })).toMatch(/email address/);
  });

  it("refuses passwords over 128 characters, counted in characters not bytes", () => {
    expect(passwordProblem("é".repeat(128), ctx)).not.toMatch(/at most/);
    expect(passwordProblem("x1y2".repeat(33), ctx)).toMatch(/at most 128/);
  });
});
