import { describe, expect, it } from "vitest";

import { HEALTH_POLICY, healthSchedule } from "../src/policies";
import {
  isJobName,
  jobIds,
  JOB_DEFINITIONS,
  JOB_NAMES,
  JOB_OPTION_PRESETS,
  JOBS,
  jobPayload,
  parseJob,
  redisChannels,
  redisKeys,
} from "../src/contracts";

describe("job contracts", () => {
  it("has a payload schema for every job name and nothing else", () => {
    expect(Object.keys(JOB_DEFINITIONS).sort()).toEqual(Object.values(JOB_NAMES).sort());
  });

  it("registers every definition under its own name, no two jobs sharing one", () => {
    expect(Object.keys(JOB_DEFINITIONS)).toHaveLength(Object.keys(JOBS).length);
    for (const [name, job] of Object.entries(JOB_DEFINITIONS)) expect(job.name).toBe(name);
  });

  // Jobs already queued in Redis carry these names and were added with these options: renaming one strands them.
  it("keeps the job names and options that queued jobs were added with", () => {
    const options = Object.fromEntries(Object.values(JOBS).map((job) => [job.name, job.options]));
    const P = JOB_OPTION_PRESETS;
    expect(options).toEqual({
      "instance.discover": P.singleton,
      "instance.reconnect": P.singleton,
      "instance.health": P.repeated,
      "instance.force-reconnect": P.trigger,
      "instance.restart": P.trigger,
      "instance.call-failed": P.trigger,
      "instance.crashed": P.trigger,
      "installation.created": P.trigger,
      "config.changed": P.trigger,
      "installation.removed": P.trigger,
      "member.removed": P.trigger,
      "instance.oauth-authorized": P.trigger,
      "instance.oauth-refresh": P.singletonOnce,
      "maintenance.oauth-flow-cleanup": P.repeated,
      "maintenance.activity-rollup": P.repeated,
      "maintenance.retention-prune": P.repeated,
      "connection.test": P.connectionTest,
      "instance.catalogue-refresh": P.catalogueRefresh,
    });
    expect(P.trigger).toEqual({
      attempts: 5,
      backoff: { type: "exponential", delay: 1_000 },
      removeOnComplete: { count: 1_000 },
      removeOnFail: { count: 5_000 },
    });
    expect(P.singleton).toEqual({
      attempts: 5,
      backoff: { type: "exponential", delay: 1_000 },
      removeOnComplete: true,
      removeOnFail: true,
    });
  });

  it("parses a valid payload and strips nothing it needs", () => {
    const result = parseJob(JOB_NAMES.discover, { instanceId: "i1", reason: "provisioned" });
    expect(result).toEqual({
      success: true,
      job: { name: "instance.discover", payload: { instanceId: "i1", reason: "provisioned" } },
    });
  });

  it("takes the OAuth flow cleanup with an empty payload and nothing else", () => {
    expect(parseJob(JOB_NAMES.oauthFlowCleanup, {})).toEqual({
      success: true,
      job: { name: "maintenance.oauth-flow-cleanup", payload: {} },
    });
    expect(parseJob(JOB_NAMES.oauthFlowCleanup, undefined)).toMatchObject({
      success: false,
      reason: "invalid_payload",
    });
  });

  it("reports an unknown job name as such", () => {
    const result = parseJob("instance.explode", { instanceId: "i1" });
    expect(result).toMatchObject({ success: false, reason: "unknown_job" });
    expect(isJobName("instance.explode")).toBe(false);
    expect(isJobName(JOB_NAMES.health)).toBe(true);
  });

  it("reports an invalid payload with the job name and the field", () => {
    const result = parseJob(JOB_NAMES.installationRemoved, { installationId: "x", teamId: "t" });
    expect(result.success).toBe(false);
    if (!result.success) {
      expect(result.reason).toBe("invalid_payload");
      expect(result.error).toContain("installation.removed");
      expect(result.error).toContain("instanceIds");
    }
  });

  it("throws on the producer side for a payload that would be rejected", () => {
    expect(() => jobPayload(JOB_NAMES.reconnect, { instanceId: "" })).toThrow();
  });

  it("builds deterministic ids without the queue's ':' separator", () => {
    for (const make of Object.values(jobIds)) {
      expect(make("abc")).toBe(make("abc"));
      expect(make("abc")).not.toContain(":");
    }
    expect(new Set(Object.values(jobIds).map((make) => make("abc"))).size).toBe(Object.keys(jobIds).length);
  });
});

describe("health schedule", () => {
  it("keeps every interval within 120 s ± 10% and the offset inside it", () => {
    for (let i = 0; i < 500; i++) {
      const { everyMs, offsetMs } = healthSchedule(`inst_${i}`);
      expect(everyMs).toBeGreaterThanOrEqual(HEALTH_POLICY.intervalMs * 0.9);
      expect(everyMs).toBeLessThanOrEqual(HEALTH_POLICY.intervalMs * 1.1);
      expect(offsetMs).toBeGreaterThanOrEqual(0);
      expect(offsetMs).toBeLessThan(everyMs);
    }
  });

  it("is stable per instance, so upserting it again changes nothing", () => {
    expect(healthSchedule("same-id")).toEqual(healthSchedule("same-id"));
  });

  it("spreads instances instead of probing them in step", () => {
    const intervals = new Set(Array.from({ length: 200 }, (_, i) => healthSchedule(`inst_${i}`).everyMs));
    const offsets = Array.from({ length: 200 }, (_, i) => healthSchedule(`inst_${i}`).offsetMs);
    expect(intervals.size).toBeGreaterThan(150);
    // Offsets cover the interval: some in each quarter.
    for (let q = 0; q < 4; q++) {
      expect(offsets.some((o) => o >= q * 27_000 && o < (q + 1) * 27_000)).toBe(true);
    }
  });
});

describe("redisConnectionFromUrl", () => {
  it("reads host, port, credentials, database and TLS from REDIS_URL the same way for web and worker", async () => {
    const { redisConnectionFromUrl } = await import("../src/contracts");
    expect(redisConnectionFromUrl("redis://127.0.0.1:6379")).toEqual({
      host: "127.0.0.1",
      port: 6379,
      db: 0,
      username: undefined,
      password: undefined,
      tls: undefined,
      cluster: false,
    });
    expect(redisConnectionFromUrl("rediss://us%40r:p%3Ass@cache.internal/3")).toEqual({
      host: "cache.internal",
      port: 6379,
      username: "us@r",
      password: "p:ss",
      db: 3,
      tls: {},
      cluster: false,
    });
  });

  it("reads a Redis Cluster node from redis+cluster:// and rediss+cluster://, and refuses a database other than 0", async () => {
    const { redisConnectionFromUrl } = await import("../src/contracts");
    expect(redisConnectionFromUrl("redis+cluster://127.0.0.1:7001")).toMatchObject({
      host: "127.0.0.1",
      port: 7001,
      tls: undefined,
      cluster: true,
    });
    expect(redisConnectionFromUrl("rediss+cluster://:secret@clustercfg.cache.internal")).toMatchObject({
      host: "clustercfg.cache.internal",
      port: 6379,
      password: "secret",
      tls: {},
      cluster: true,
    });
    expect(() => redisConnectionFromUrl("redis+cluster://127.0.0.1:7001/2")).toThrow(/only database 0/);
  });
});

describe("redis keys and channels", () => {
  it("puts every key and channel under the deployment's prefix, one per team and one per member, distinct", () => {
    expect(redisChannels.team("sb", "t1")).toBe("sb:switchboard:team:t1");
    expect(redisChannels.member("sb", "u1")).toBe("sb:switchboard:member:u1");
    expect(redisChannels.team("sb", "x")).not.toBe(redisChannels.member("sb", "x"));
    const keys = [
      redisKeys.stdioLease("sb", "i"),
      redisKeys.instanceLock("sb", "i"),
      redisKeys.workerReconciled("sb"),
      redisKeys.sandboxStatus("sb"),
    ];
    const channels = [
      redisChannels.auth("sb"),
      redisChannels.mcpSessionsClosed("sb"),
      redisChannels.mcpAnswers("sb", "p"),
      redisChannels.teamCalls("sb", "t1"),
    ];
    for (const name of [...keys, ...channels]) expect(name.startsWith("sb:")).toBe(true);
    expect(new Set([...keys, ...channels]).size).toBe(keys.length + channels.length);
  });

  it("puts every key a session save touches in its member's hash slot, and the rate counters in one key each", () => {
    // Redis Cluster hashes the first {...} of a key: one script may touch only keys of one slot.
    const tag = (key: string) => /\{([^}]*)\}/.exec(key)?.[1];
    const alice = { teamId: "t1", userId: "u1" };
    const saved = [
      redisKeys.mcpSession("sb", alice, "s1"),
      redisKeys.mcpSession("sb", alice, "s2"),
      redisKeys.mcpSessionClosed("sb", alice, "s2"),
      redisKeys.mcpTokenSessions("sb", alice, "tok1"),
      redisKeys.mcpMemberSessions("sb", alice),
    ];
    expect(new Set(saved.map(tag))).toEqual(new Set(["t1.u1"]));
    expect(new Set(saved).size).toBe(saved.length);
    expect(tag(redisKeys.mcpSession("sb", { teamId: "t1", userId: "u2" }, "s1"))).not.toBe("t1.u1");
    for (const key of saved) expect(key.startsWith("sb:")).toBe(true);
    expect(redisKeys.mcpSessionRateToken("sb", "tok1")).not.toBe(redisKeys.mcpSessionRateMember("sb", "t1", "u1"));
  });

  it("matches a team's channel with the every-team pattern and not a member's", () => {
    const glob = (pattern: string) => new RegExp(`^${pattern.replaceAll("*", ".*")}$`);
    expect(glob(redisChannels.everyTeam("sb")).test(redisChannels.team("sb", "t1"))).toBe(true);
    expect(glob(redisChannels.everyTeam("sb")).test(redisChannels.member("sb", "u1"))).toBe(false);
    expect(glob(redisChannels.everyMember("sb")).test(redisChannels.member("sb", "u1"))).toBe(true);
    // A team's request-log channel is heard by its own pattern, never parsed as an instance event.
    expect(glob(redisChannels.everyTeamCalls("sb")).test(redisChannels.teamCalls("sb", "t1"))).toBe(true);
    expect(glob(redisChannels.everyTeam("sb")).test(redisChannels.teamCalls("sb", "t1"))).toBe(false);
  });
});
