import { describe, expect, it } from "vitest";
import {
  defaultWriteMax,
  isReadOnlyTool,
  quotaCounters,
  quotaRefusalData,
  quotaRefusalMessage,
  toolQuotaProblems,
  type QuotaCall,
  type ToolQuota,
} from "../src/governance";
import { redisKeys } from "../src/contracts";

const call = (over: Partial<QuotaCall> = {}): QuotaCall => ({
  teamId: "team1",
  userId: "alice",
  tokenId: "tok1",
  installationId: "inst1",
  tool: "search",
  readOnly: true,
  ...over,
});

const quota = (over: Partial<ToolQuota> = {}): ToolQuota => ({
  id: "q1",
  installationId: null,
  toolName: null,
  subject: "member",
  window: "minute",
  max: 100,
  writeMax: null,
  ...over,
});

describe("quotaCounters", () => {
  it("takes no counter when the team set no limit", () => {
    expect(quotaCounters([], call())).toEqual([]);
  });

  it("counts a read-only call once, against all calls", () => {
    expect(quotaCounters([quota()], call())).toEqual([
      {
        quotaId: "q1",
        subject: "member",
        window: "minute",
        windowSeconds: 60,
        counts: "calls",
        limit: 100,
        identity: ["team1", "alice"],
      },
    ]);
  });

  it("counts a call to a tool that is not read-only against all calls and, more strictly, against writes", () => {
    const counters = quotaCounters([quota({ window: "hour" })], call({ readOnly: false }));
    expect(counters.map((c) => [c.counts, c.limit, c.windowSeconds])).toEqual([
      ["calls", 100, 3600],
      ["writes", 20, 3600],
    ]);
  });

  it("uses the write limit an admin set instead of the default", () => {
    const counters = quotaCounters([quota({ writeMax: 7 })], call({ readOnly: false }));
    expect(counters.find((c) => c.counts === "writes")?.limit).toBe(7);
  });

  it("keys each subject on its identity, never on a session", () => {
    const identity = (subject: ToolQuota["subject"]) => quotaCounters([quota({ subject })], call())[0]?.identity;
    expect(identity("member")).toEqual(["team1", "alice"]);
    expect(identity("token")).toEqual(["tok1"]);
    expect(identity("installation")).toEqual(["inst1"]);
    expect(identity("tool")).toEqual(["inst1", "search"]);
  });

  it("applies a limit on one installation or one tool to that installation or tool only", () => {
    const quotas = [
      quota({ id: "inst", installationId: "inst1" }),
      quota({ id: "tool", installationId: "inst1", toolName: "delete" }),
    ];
    expect(quotaCounters(quotas, call()).map((c) => c.quotaId)).toEqual(["inst"]);
    expect(quotaCounters(quotas, call({ tool: "delete" })).map((c) => c.quotaId)).toEqual(["inst", "tool"]);
    expect(quotaCounters(quotas, call({ installationId: "inst2", tool: "delete" }))).toEqual([]);
  });

  it("gives two limits with the same identity two keys", () => {
    const [a, b] = quotaCounters([quota({ id: "a" }), quota({ id: "b", window: "day" })], call());
    const key = (c: typeof a) => redisKeys.toolQuota("sb", c!.quotaId, c!.counts, c!.identity);
    expect(key(a)).not.toBe(key(b));
    expect(key(a)).toBe("sb:mcp:quota:a:calls:team1:alice");
  });
});

describe("the stricter default for writes", () => {
  it("is a fifth of the limit on all calls, at least one", () => {
    expect(defaultWriteMax(100)).toBe(20);
    expect(defaultWriteMax(4)).toBe(1);
    expect(defaultWriteMax(1)).toBe(1);
  });

  it("treats a tool as read-only only when it says readOnlyHint: true", () => {
    expect(isReadOnlyTool({ readOnlyHint: true })).toBe(true);
    expect(isReadOnlyTool({ readOnlyHint: false })).toBe(false);
    expect(isReadOnlyTool({})).toBe(false);
    expect(isReadOnlyTool(undefined)).toBe(false);
  });
});

describe("a refusal", () => {
  const refusal = {
    subject: "token" as const,
    window: "hour" as const,
    counts: "writes" as const,
    limit: 5,
    resetAt: "2026-12-01T10:00:00.000Z",
  };

  it("says in one sentence which limit and when it resets", () => {
    const message = quotaRefusalMessage(refusal, "gh-delete_branch", Date.parse("2026-12-01T09:59:20.000Z"));
    expect(message).toBe(
      "Quota reached: at most 5 calls to tools that are not read-only per hour for this token; it resets in 40 s (2026-12-01T10:00:00.000Z).",
    );
    expect(message.match(/\. /g)).toBeNull();
  });

  it("names the tool for a per-tool limit and never says zero seconds", () => {
    const message = quotaRefusalMessage(
      { ...refusal, subject: "tool", counts: "calls" },
      "gh-search",
      Date.parse("2026-12-01T10:00:00.000Z"),
    );
    expect(message).toContain("at most 5 tool calls per hour for gh-search; it resets in 1 s");
  });

  it("carries the limit, its window and when it resets as data", () => {
    expect(quotaRefusalData(refusal)).toEqual({ ...refusal, windowSeconds: 3600 });
  });
});

describe("toolQuotaProblems", () => {
  const input = (over: Partial<ToolQuota> = {}) => {
    const { id: _, ...rest } = quota(over);
    return rest;
  };

  it("accepts a plain limit", () => {
    expect(toolQuotaProblems(input())).toEqual([]);
  });

  it("refuses counts that are not whole positive numbers", () => {
    expect(toolQuotaProblems(input({ max: 0 }))).toHaveLength(1);
    expect(toolQuotaProblems(input({ max: 1.5 }))).toHaveLength(1);
    expect(toolQuotaProblems(input({ writeMax: 0 }))).toHaveLength(1);
  });

  it("refuses a write limit above the limit on all calls", () => {
    expect(toolQuotaProblems(input({ max: 10, writeMax: 11 }))).toEqual([
      "The limit on tools that are not read-only cannot be above the limit on all calls.",
    ]);
  });

  it("refuses a tool without its server", () => {
    expect(toolQuotaProblems(input({ toolName: "search" }))).toEqual(["A limit on one tool names its server."]);
  });
});
