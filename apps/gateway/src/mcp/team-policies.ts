import { defaultPolicyDecision } from "@switchboard/core/governance";
import type { GatedCall, ListedItem, PolicyDecision, PolicyGate } from "@switchboard/core/proxy";
import {
  checkPolicies,
  decideCall,
  hiddenByPolicies,
  POLICY_UNAVAILABLE_REASON,
  type CompiledPolicies,
  type PolicyItem,
  type PolicyPrincipal,
} from "@switchboard/core/team-policies";
import { getDb } from "@switchboard/db/client";
import { currentTeamPolicySet, policySubject, tokenKind } from "@switchboard/db/queries/policy";
import { onTeamEvent } from "@switchboard/runtime/live-events";
import { logger } from "@switchboard/runtime/logger";

/**
 * The route's policy gate: a team's policies (docs/policies.md) decide each call with core `decideCall`, the
 * function the console's "what would happen" panel uses too. A team that never wrote policies costs nothing
 * here: no Cedar, the default decision (core `defaultPolicyDecision`). The policies in force and who a member is
 * to them (role, groups, token kind) are kept for a few seconds and dropped at once when the console announces a
 * change (a `catalogue_changed` event of the team). Anything that fails refuses the call with a sentence: a call
 * is never let through on an error, and never hangs on one.
 */

/** How long this process keeps a team's policies and a member's subject: a change applies within this time. */
export const POLICY_SETTINGS_TTL_MS = 5_000;

interface Cached<T> {
  at: number;
  value: Promise<T>;
}

const state: {
  sets: Map<string, Cached<CompiledPolicies | null>>;
  subjects: Map<string, Cached<Subject | null>>;
  listening: Map<string, () => void>;
} = { sets: new Map(), subjects: new Map(), listening: new Map() };

interface Subject {
  principal: PolicyPrincipal;
  token: "token" | "oauth";
}

function cached<T>(map: Map<string, Cached<T>>, key: string, load: () => Promise<T>): Promise<T> {
  const hit = map.get(key);
  if (hit && Date.now() - hit.at < POLICY_SETTINGS_TTL_MS) return hit.value;
  const value = load();
  map.set(key, { at: Date.now(), value });
  value.catch(() => map.delete(key));
  return value;
}

/** Forgets what this process read of a team's policies and its members. */
export function forgetTeamPolicies(teamId: string): void {
  state.sets.delete(teamId);
  for (const key of state.subjects.keys()) if (key.startsWith(`${teamId}:`)) state.subjects.delete(key);
}

function listen(teamId: string) {
  if (state.listening.has(teamId)) return;
  state.listening.set(
    teamId,
    onTeamEvent(teamId, (event) => {
      if (event.type === "catalogue_changed") forgetTeamPolicies(teamId);
    }),
  );
}

async function loadPolicies(teamId: string): Promise<CompiledPolicies | null> {
  const saved = await currentTeamPolicySet(getDb(), { teamId });
  if (!saved?.text) return null;
  const checked = checkPolicies(saved.text, String(saved.version));
  // The console saves only text that checks; one that does not (a schema change since) refuses every call.
  if (!checked.ok) throw new Error(`policy version ${saved.version} no longer checks: ${checked.problems[0]?.message}`);
  return checked.compiled;
}

export function teamPolicies(teamId: string): Promise<CompiledPolicies | null> {
  listen(teamId);
  return cached(state.sets, teamId, () => loadPolicies(teamId));
}

async function loadSubject(member: GateMember): Promise<Subject | null> {
  const db = getDb();
  const [subject, token] = await Promise.all([
    policySubject(db, { teamId: member.teamId, userId: member.userId }),
    tokenKind(db, { tokenId: member.tokenId }),
  ]);
  return subject ? { principal: { userId: member.userId, ...subject }, token } : null;
}

export interface GateMember {
  teamId: string;
  userId: string;
  tokenId: string;
  /** The client's name as it introduced itself. */
  client: string;
  /** The MCP protocol revision the client speaks. */
  revision: string;
}

function itemOf(call: ListedItem): PolicyItem {
  const hints = call.annotations;
  return {
    kind: call.kind,
    target: call.target,
    installationId: call.installationId,
    installationSlug: call.installationSlug ?? call.installationId,
    ...(hints ? { annotations: hints } : {}),
  };
}

const refused = (reason = POLICY_UNAVAILABLE_REASON): PolicyDecision => ({
  effect: "forbid",
  reason,
  policyVersion: "unavailable",
});

export function teamPolicyGate(member: GateMember): PolicyGate {
  const { teamId } = member;
  const subjectKey = `${teamId}:${member.userId}:${member.tokenId}`;
  const request = (subject: Subject, item: PolicyItem, args?: Record<string, unknown>) => ({
    teamId,
    principal: subject.principal,
    item,
    arguments: args,
    token: subject.token,
    client: member.client,
    revision: member.revision,
    time: new Date(),
  });
  /** The team's policies and the member as they see them; null: the team has none (the default decision). */
  const load = async (): Promise<{ compiled: CompiledPolicies; subject: Subject } | null> => {
    const compiled = await teamPolicies(teamId);
    if (!compiled) return null;
    const subject = await cached(state.subjects, subjectKey, () => loadSubject(member));
    if (!subject) throw new Error("not a member of the team");
    return { compiled, subject };
  };
  return {
    async decide(call: GatedCall): Promise<PolicyDecision> {
      let loaded: Awaited<ReturnType<typeof load>>;
      try {
        loaded = await load();
      } catch (err) {
        logger.warn({ err, teamId }, "team policies unavailable: call refused");
        return refused();
      }
      if (!loaded) return defaultPolicyDecision(call);
      return decideCall(loaded.compiled, request(loaded.subject, itemOf(call), call.arguments), call.governance);
    },
    async hides(listed: () => readonly ListedItem[]): Promise<readonly boolean[] | null> {
      let loaded: Awaited<ReturnType<typeof load>>;
      try {
        loaded = await load();
      } catch (err) {
        // A list shows nothing it cannot vouch for; each call would be refused anyway.
        logger.warn({ err, teamId }, "team policies unavailable: lists show nothing");
        return listed().map(() => true);
      }
      if (!loaded) return null;
      const { compiled, subject } = loaded;
      return listed().map((item) => hiddenByPolicies(compiled, request(subject, itemOf(item))));
    },
  };
}
