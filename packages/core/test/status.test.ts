import { describe, expect, it } from "vitest";
import { attentionRank, compareAttention, needsAttention, nextStep, statusLabelFor } from "../src/status/attention";

import {
  CONNECTION_STATUSES,
  DISCOVERY_STEPS,
  FAILURE_STATUSES,
  INSTANCE_STATUSES,
  MEMBER_ACTION_STATUSES,
  RETRYING_STATUSES,
  isInProgress,
  isLaunched,
  isReconnectable,
  isRetrying,
  needsMemberAction,
  IllegalTransitionError,
  STATUS_LABELS,
  TRANSITIONS,
  afterWorkerLost,
  assertTransition,
  callAdmission,
  canTransition,
  isInstanceStatus,
  statusTone,
  toolsAvailable,
  type InstanceStatus,
  skipsOAuthAuthorized,
} from "../src/status";

/** Breadth-first walk over TRANSITIONS: can `to` be reached from `from` at all? */
function reachable(from: InstanceStatus, to: InstanceStatus): boolean {
  const seen = new Set<InstanceStatus>([from]);
  const queue: InstanceStatus[] = [from];
  while (queue.length > 0) {
    const current = queue.shift()!;
    for (const next of TRANSITIONS[current]) {
      if (next === to) return true;
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return false;
}

function walk(path: InstanceStatus[]): void {
  for (let i = 1; i < path.length; i++) assertTransition(path[i - 1]!, path[i]!);
}

describe("instance statuses", () => {
  it("has exactly the 12 per-member states", () => {
    expect(INSTANCE_STATUSES).toHaveLength(12);
    expect(new Set(INSTANCE_STATUSES).size).toBe(12);
  });

  it.each([
    ["online", true],
    ["awaiting_user_config", true],
    ["reconnecting", false],
    ["ONLINE", false],
    [undefined, false],
    [3, false],
  ])("recognises %s as a status: %s", (value, expected) => {
    expect(isInstanceStatus(value)).toBe(expected);
  });
});

describe("transitions", () => {
  it("lists a row for every status and only known statuses as targets", () => {
    expect(Object.keys(TRANSITIONS).sort()).toEqual([...INSTANCE_STATUSES].sort());
    for (const targets of Object.values(TRANSITIONS)) {
      for (const t of targets) expect(isInstanceStatus(t)).toBe(true);
    }
  });

  it("never lists a self-transition", () => {
    for (const s of INSTANCE_STATUSES) expect(canTransition(s, s)).toBe(false);
  });

  it.each<[string, InstanceStatus[]]>([
    [
      "initial discovery",
      ["provisioning", "command_received", "connecting", "discovering_tools", "syncing_tools", "online"],
    ],
    ["member fills personal settings", ["awaiting_user_config", "provisioning", "command_received", "connecting"]],
    ["config update", ["online", "restarting", "connecting", "discovering_tools", "online"]],
    ["network failure and recovery", ["online", "offline", "connecting", "discovering_tools", "online"]],
    ["error and recovery", ["online", "error", "connecting", "discovering_tools", "syncing_tools", "online"]],
    ["oauth failure and re-authentication", ["online", "requires_reauth", "connecting", "discovering_tools", "online"]],
    ["stdio crash loop", ["online", "connecting", "discovering_tools", "online", "connecting", "permanently_failed"]],
    ["explicit restart after permanent failure", ["permanently_failed", "provisioning", "command_received"]],
    ["restart in place after permanent failure", ["permanently_failed", "connecting"]],
    ["failure while discovering", ["connecting", "discovering_tools", "offline"]],
  ])("allows the %s path", (_name, path) => {
    expect(() => walk(path)).not.toThrow();
  });

  it.each<[InstanceStatus, InstanceStatus]>([
    ["provisioning", "online"],
    ["awaiting_user_config", "online"],
    ["awaiting_user_config", "connecting"],
    ["offline", "online"],
    ["error", "online"],
    ["requires_reauth", "online"],
    ["requires_reauth", "offline"],
    ["permanently_failed", "online"],
    ["permanently_failed", "offline"],
    ["permanently_failed", "restarting"],
    ["online", "provisioning"],
  ])("forbids %s -> %s", (from, to) => {
    expect(canTransition(from, to)).toBe(false);
    expect(() => assertTransition(from, to)).toThrow(IllegalTransitionError);
  });

  it("lets every other state fall back to awaiting_user_config when a required user field goes missing", () => {
    for (const s of INSTANCE_STATUSES) {
      if (s !== "awaiting_user_config") expect(canTransition(s, "awaiting_user_config")).toBe(true);
    }
  });

  it("only leaves awaiting_user_config towards provisioning", () => {
    expect(TRANSITIONS.awaiting_user_config).toEqual(["provisioning"]);
  });

  it("only leaves permanently_failed by an explicit restart (or missing settings)", () => {
    expect([...TRANSITIONS.permanently_failed].sort()).toEqual(["awaiting_user_config", "connecting", "provisioning"]);
  });

  it("can fail to offline, error or requires_reauth from online and every in-progress connection state", () => {
    for (const from of [
      "command_received",
      "connecting",
      "discovering_tools",
      "syncing_tools",
      "online",
      "restarting",
    ] as const) {
      for (const to of ["offline", "error", "requires_reauth"] as const) expect(canTransition(from, to)).toBe(true);
    }
  });

  it("can reach online from every state", () => {
    for (const s of INSTANCE_STATUSES) if (s !== "online") expect(reachable(s, "online")).toBe(true);
  });

  it("carries from and to on the error it throws", () => {
    try {
      assertTransition("offline", "online");
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(IllegalTransitionError);
      expect(e).toMatchObject({ from: "offline", to: "online", name: "IllegalTransitionError" });
    }
  });

  it("cannot be mutated by a consumer", () => {
    expect(Object.isFrozen(TRANSITIONS)).toBe(true);
    expect(Object.isFrozen(TRANSITIONS.online)).toBe(true);
  });
});

describe("tool availability and call admission", () => {
  it("lists tools only for online instances", () => {
    expect(INSTANCE_STATUSES.filter(toolsAvailable)).toEqual(["online"]);
  });

  it.each<[InstanceStatus, ReturnType<typeof callAdmission>["allowed"], boolean | string]>([
    ["online", true, false],
    ["offline", true, true],
    ["error", true, true],
    ["connecting", true, false],
    ["discovering_tools", true, false],
    ["syncing_tools", true, false],
    ["requires_reauth", false, "requires_reauth"],
    ["awaiting_user_config", false, "awaiting_user_config"],
    ["permanently_failed", false, "permanently_failed"],
    ["provisioning", false, "not_ready"],
    ["command_received", false, "not_ready"],
    ["restarting", false, "not_ready"],
  ])("admits a call on %s: %s (%s)", (status, allowed, detail) => {
    const admission = callAdmission(status);
    expect(admission.allowed).toBe(allowed);
    if (admission.allowed) expect(admission.recovering).toBe(detail);
    else {
      expect(admission.reason).toBe(detail);
      expect(admission.message.length).toBeGreaterThan(0);
    }
  });
});

describe("labels and tones", () => {
  it("has a non-empty, distinct label for every status", () => {
    const labels = INSTANCE_STATUSES.map((s) => STATUS_LABELS[s]);
    for (const l of labels) expect(l.trim()).not.toBe("");
    expect(new Set(labels).size).toBe(labels.length);
  });

  it.each<[InstanceStatus, string]>([
    ["online", "ok"],
    ["connecting", "progress"],
    ["restarting", "progress"],
    ["offline", "warning"],
    ["requires_reauth", "warning"],
    ["error", "danger"],
    ["permanently_failed", "danger"],
    ["awaiting_user_config", "muted"],
  ])("colours %s as %s", (status, tone) => {
    expect(statusTone(status)).toBe(tone);
  });
});

describe("who has to act on an instance", () => {
  it("tells the owner to fill in their settings and an admin whose settings are missing", () => {
    expect(nextStep("awaiting_user_config", { own: true, admin: false, member: "Ann" })).toBe(
      "Fill in your settings on My servers.",
    );
    expect(nextStep("awaiting_user_config", { own: false, admin: true, member: "Ann" })).toBe(
      "Ann has to fill in their settings.",
    );
    expect(statusLabelFor("awaiting_user_config", { own: true })).toBe("Needs your settings");
    expect(statusLabelFor("awaiting_user_config", { own: false })).not.toMatch(/your/);
  });

  it("sends a member to an admin for a stopped server and an admin to the crash output", () => {
    expect(nextStep("permanently_failed", { own: true, admin: false, member: "Ann" })).toMatch(/admin has to restart/);
    expect(nextStep("permanently_failed", { own: false, admin: true, member: "Ann" })).toMatch(/Restart/);
    expect(nextStep("online", { own: true, admin: true, member: "Ann" })).toBeNull();
  });

  it("ranks stopped before failing before waiting, and leaves healthy statuses out", () => {
    expect(attentionRank("permanently_failed")).toBeLessThan(attentionRank("error"));
    expect(attentionRank("offline")).toBeLessThan(attentionRank("awaiting_user_config"));
    expect(needsAttention("online")).toBe(false);
    expect(needsAttention("requires_reauth")).toBe(true);
  });

  it("orders the list by urgency, then server and member names, never by when a status last changed", () => {
    const item = (instanceId: string, status: "offline" | "error", server: string, member: string) => ({
      instanceId,
      status,
      installation: { name: server },
      user: { name: member },
    });
    const items = [
      item("4", "offline", "Beta", "Ann"),
      item("3", "offline", "Alpha", "Bob"),
      item("2", "error", "Zeta", "Ann"),
      item("1", "offline", "Alpha", "Ann"),
      item("0", "offline", "Alpha", "Ann"),
    ];
    expect(items.sort(compareAttention).map((i) => i.instanceId)).toEqual(["2", "0", "1", "3", "4"]);
  });
});

describe("status groups", () => {
  it("walks the discovery steps in transition order, each step a legal move to the next", () => {
    for (let i = 1; i < DISCOVERY_STEPS.length; i++)
      expect(canTransition(DISCOVERY_STEPS[i - 1]!, DISCOVERY_STEPS[i]!)).toBe(true);
    expect(canTransition(DISCOVERY_STEPS.at(-1)!, "online")).toBe(true);
  });

  it("lets a member reconnect only online or retrying instances, never a permanently failed one", () => {
    expect(INSTANCE_STATUSES.filter(isReconnectable)).toEqual(["online", "offline", "error"]);
    expect(isReconnectable("permanently_failed")).toBe(false);
  });

  it("retries offline and error only, both of which may move to connecting", () => {
    expect(INSTANCE_STATUSES.filter(isRetrying)).toEqual(["offline", "error"]);
    for (const s of RETRYING_STATUSES) expect(canTransition(s, "connecting")).toBe(true);
  });

  it("counts as in progress exactly the statuses the console shows with the progress tone", () => {
    expect(INSTANCE_STATUSES.filter(isInProgress)).toEqual(
      INSTANCE_STATUSES.filter((s) => statusTone(s) === "progress"),
    );
  });

  it("restarts on a configuration change everything launched, but not provisioning, awaiting settings or stopped", () => {
    expect(INSTANCE_STATUSES.filter((s) => !isLaunched(s))).toEqual([
      "awaiting_user_config",
      "provisioning",
      "permanently_failed",
    ]);
  });

  it("drops a held connection on a failure only from statuses that may move to every failure", () => {
    for (const s of CONNECTION_STATUSES)
      for (const f of FAILURE_STATUSES) if (s !== f) expect(canTransition(s, f)).toBe(true);
  });

  it("takes fresh OAuth tokens into a reconnect except while awaiting settings, stopped or restarting", () => {
    expect(INSTANCE_STATUSES.filter(skipsOAuthAuthorized)).toEqual([
      "awaiting_user_config",
      "restarting",
      "permanently_failed",
    ]);
  });

  it("sends to the fix page only where the member must act, and the proxy blocks those calls", () => {
    for (const s of MEMBER_ACTION_STATUSES) expect(callAdmission(s).allowed).toBe(false);
    expect(needsMemberAction("permanently_failed")).toBe(false);
  });
});

describe("an instance whose worker is gone", () => {
  it("leaves online and the walk to it for offline, and keeps every status that waits for something else", () => {
    const moved = INSTANCE_STATUSES.filter((s) => afterWorkerLost(s) !== null);
    expect(moved).toEqual(["connecting", "discovering_tools", "syncing_tools", "online"]);
    for (const s of moved) expect(canTransition(s, afterWorkerLost(s)!)).toBe(true);
    expect(afterWorkerLost("online")).toBe("offline");
    // offline and error retry by themselves; a restart or a launch in flight is re-run by the next worker.
    for (const s of ["offline", "error", "restarting", "command_received", "permanently_failed"] as const)
      expect(afterWorkerLost(s)).toBeNull();
  });
});
