import { describe, expect, it } from "vitest";
import {
  APPROVAL_REQUEST_TTL_MS,
  APPROVAL_USE_WINDOW_MS,
  approvalArgumentsHash,
  approvalDecisionExpiry,
  approvalDeniedMessage,
  approvalExpiredMessage,
  approvalPath,
  approvalPendingMessage,
  approvalRequestExpiry,
  approvalState,
  approvalUsedMessage,
  approveProblem,
  isApprovalDecidable,
  mayApprove,
} from "../src/governance";

describe("approvalArgumentsHash", () => {
  it("hashes the same arguments the same whatever their key order", () => {
    expect(approvalArgumentsHash({ a: 1, b: { c: "x", d: [1, 2] } })).toBe(
      approvalArgumentsHash({ b: { d: [1, 2], c: "x" }, a: 1 }),
    );
  });

  it("tells arguments apart that differ in one value", () => {
    expect(approvalArgumentsHash({ amount: 10 })).not.toBe(approvalArgumentsHash({ amount: 11 }));
    expect(approvalArgumentsHash({ amount: 10 })).not.toBe(approvalArgumentsHash({ amount: "10" }));
  });

  it("hashes no arguments as an empty object, a SHA-256 in hex", () => {
    expect(approvalArgumentsHash(undefined)).toBe(approvalArgumentsHash({}));
    expect(approvalArgumentsHash(null)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("expiry", () => {
  const t0 = new Date("2026-12-01T10:00:00Z");

  it("gives a pending request an hour and a decision fifteen minutes", () => {
    expect(APPROVAL_REQUEST_TTL_MS).toBe(3_600_000);
    expect(APPROVAL_USE_WINDOW_MS).toBe(900_000);
    expect(approvalRequestExpiry(t0).toISOString()).toBe("2026-12-01T11:00:00.000Z");
    expect(approvalDecisionExpiry(t0).toISOString()).toBe("2026-12-01T10:15:00.000Z");
  });

  it("reads a pending or approved request past its expiry as expired, a denied or used one as it is", () => {
    const later = new Date(t0.getTime() + 1);
    expect(approvalState({ state: "pending", expiresAt: later }, t0)).toBe("pending");
    expect(approvalState({ state: "pending", expiresAt: t0 }, t0)).toBe("expired");
    expect(approvalState({ state: "approved", expiresAt: t0 }, t0)).toBe("expired");
    expect(approvalState({ state: "approved", expiresAt: later }, t0)).toBe("approved");
    expect(approvalState({ state: "denied", expiresAt: t0 }, t0)).toBe("denied");
    expect(approvalState({ state: "used", expiresAt: t0 }, t0)).toBe("used");
  });

  it("lets only a pending, unexpired request be decided", () => {
    const later = new Date(t0.getTime() + 1000);
    expect(isApprovalDecidable({ state: "pending", expiresAt: later }, t0)).toBe(true);
    expect(isApprovalDecidable({ state: "pending", expiresAt: t0 }, t0)).toBe(false);
    expect(isApprovalDecidable({ state: "approved", expiresAt: later }, t0)).toBe(false);
    expect(isApprovalDecidable({ state: "denied", expiresAt: later }, t0)).toBe(false);
  });
});

describe("mayApprove", () => {
  const base = { approverIds: [] as string[], deciderId: "bob", deciderRole: "admin", callerId: "alice" };

  it("lets the team's admins and owners decide when the installation names no approvers", () => {
    expect(mayApprove(base)).toBe(true);
    expect(mayApprove({ ...base, deciderRole: "owner" })).toBe(true);
    expect(mayApprove({ ...base, deciderRole: "member" })).toBe(false);
  });

  it("never lets the caller decide their own call, admin or named approver", () => {
    expect(mayApprove({ ...base, deciderId: "alice" })).toBe(false);
    expect(mayApprove({ ...base, approverIds: ["alice"], deciderId: "alice", deciderRole: "owner" })).toBe(false);
    expect(approveProblem({ ...base, deciderId: "alice" })).toMatch(/own call/);
  });

  it("lets only the named approvers decide when the installation names some, admins included", () => {
    const named = { ...base, approverIds: ["carol"] };
    expect(mayApprove({ ...named, deciderId: "carol", deciderRole: "member" })).toBe(true);
    expect(mayApprove({ ...named, deciderId: "bob", deciderRole: "admin" })).toBe(false);
    expect(approveProblem({ ...named, deciderId: "bob" })).toMatch(/approvers this installation names/);
  });
});

describe("approval sentences", () => {
  const url = "https://sb.example/t/acme/approvals/abc";

  it("names the page in each sentence that asks the caller to wait", () => {
    expect(approvalPath("acme", "abc")).toBe("/t/acme/approvals/abc");
    for (const message of [approvalPendingMessage(url), approvalExpiredMessage(url), approvalUsedMessage(url)]) {
      expect(message).toContain(url);
      expect(message.match(/\./g)?.length).toBe(2); // one sentence (the URL's dot and the full stop)
    }
    expect(approvalPendingMessage()).toContain("in the Switchboard console");
  });

  it("gives the approver's comment with a denial, on one line and bounded", () => {
    expect(approvalDeniedMessage()).toBe("An approver denied this call.");
    expect(approvalDeniedMessage("  not on a\nFriday ")).toBe("An approver denied this call: not on a Friday");
    expect(approvalDeniedMessage("x".repeat(2000)).length).toBeLessThan(600);
  });
});
