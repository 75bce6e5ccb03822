import {
  checkPolicies,
  decideCall,
  DEFAULT_TEAM_POLICIES,
  policyTextHash,
  POLICY_UNAVAILABLE_REASON,
  type CallDecision,
  type CompiledPolicies,
  type PolicyProblem,
} from "@switchboard/core/team-policies";
import type { Db } from "@switchboard/db/client";
import {
  currentTeamPolicySet,
  listTeamPolicyVersions,
  policyPanelChoices,
  policySubject,
  PolicyVersionConflict,
  saveTeamPolicySet,
} from "@switchboard/db/queries/policy";
import { findUserLabel } from "@switchboard/db/queries/user";
import { AppError } from "../errors";
import type { Actor } from "./actor";
import { publishCatalogueChanged } from "./governance-events";

/**
 * A team's policies as code (docs/policies.md): the text in force and its versions, checking a text against the
 * schema, saving a new version, and the "what would happen" panel, which decides with core `decideCall` exactly
 * as the route does.
 */

const HISTORY_LIMIT = 50;

/** The policies in force: the team's latest version, or the defaults (`text` null) when it has none. */
export async function currentPolicies({ db, actor }: { db: Db; actor: Actor }) {
  const saved = await currentTeamPolicySet(db, { teamId: actor.teamId });
  return {
    version: saved?.version ?? null,
    text: saved?.text ?? null,
    defaults: DEFAULT_TEAM_POLICIES,
    savedBy: saved?.savedByLabel ?? null,
    savedAt: saved?.createdAt.toISOString() ?? null,
  };
}

export async function policyHistory({ db, actor }: { db: Db; actor: Actor }) {
  const versions = await listTeamPolicyVersions(db, { teamId: actor.teamId, limit: HISTORY_LIMIT });
  return versions.map((v) => ({
    version: v.version,
    text: v.text,
    savedBy: v.savedByLabel,
    savedAt: v.createdAt.toISOString(),
  }));
}

/** The problems of a text (none: it may be saved), each with its line. */
export function checkPolicyText({ text }: { text: string }): { problems: PolicyProblem[] } {
  const checked = checkPolicies(text, "draft");
  return { problems: checked.ok ? [] : checked.problems };
}

function problemSentence(p: PolicyProblem): string {
  return p.line > 0 ? `Line ${p.line}: ${p.message}` : p.message;
}

/**
 * Saves a new version (`text` null: back to the defaults) if the version in force is still the one the editor
 * loaded, and tells the gateways and connected clients (lists may change).
 */
export async function savePolicies({
  db,
  actor,
  text,
  expectedVersion,
}: {
  db: Db;
  actor: Actor;
  text: string | null;
  expectedVersion: number | null;
}): Promise<{ version: number }> {
  if (text !== null) {
    const checked = checkPolicies(text, "draft");
    if (!checked.ok) throw new AppError("INVALID_INPUT", problemSentence(checked.problems[0]!));
  }
  let saved;
  try {
    saved = await saveTeamPolicySet(db, {
      teamId: actor.teamId,
      text,
      hash: text === null ? "" : policyTextHash(text),
      savedById: actor.userId,
      savedByLabel: await findUserLabel(db, actor.userId),
      expectedVersion,
    });
  } catch (err) {
    if (err instanceof PolicyVersionConflict)
      throw new AppError(
        "CONFLICT",
        "Someone saved the team's policies since you opened them; reload to see their version.",
        { cause: err },
      );
    throw err;
  }
  await publishCatalogueChanged(db, { teamId: actor.teamId }, "policies_changed");
  return { version: saved.version };
}

/** Members, installations and their tools to choose from in the "what would happen" panel. */
export async function panelChoices({ db, actor }: { db: Db; actor: Actor }) {
  return policyPanelChoices(db, { teamId: actor.teamId });
}

/**
 * What would happen if a member called a tool with these arguments: under a draft text when given, otherwise
 * under the policies in force. The same function as the route's (core `decideCall`), with the same inputs.
 */
export async function whatWouldHappen({
  db,
  actor,
  memberUserId,
  installationId,
  toolName,
  arguments: args,
  text,
  client,
  token,
  revision,
}: {
  db: Db;
  actor: Actor;
  memberUserId: string;
  installationId: string;
  toolName: string;
  arguments: Record<string, unknown>;
  text?: string;
  client: string;
  token: "token" | "oauth";
  revision: string;
}): Promise<CallDecision> {
  let compiled: CompiledPolicies | null;
  if (text !== undefined) {
    const checked = checkPolicies(text, "draft");
    if (!checked.ok) throw new AppError("INVALID_INPUT", problemSentence(checked.problems[0]!));
    compiled = checked.compiled;
  } else {
    const saved = await currentTeamPolicySet(db, { teamId: actor.teamId });
    const checked = saved?.text ? checkPolicies(saved.text, String(saved.version)) : null;
    // As on the route: saved policies that no longer check refuse every call.
    if (checked && !checked.ok)
      return { effect: "forbid", reason: POLICY_UNAVAILABLE_REASON, policyVersion: "unavailable" };
    compiled = checked?.ok ? checked.compiled : null;
  }
  const subject = await policySubject(db, { teamId: actor.teamId, userId: memberUserId });
  if (!subject) throw new AppError("NOT_FOUND", "That person is not a member of this team.");
  const choices = await policyPanelChoices(db, { teamId: actor.teamId });
  const installation = choices.installations.find((i) => i.id === installationId);
  if (!installation) throw new AppError("NOT_FOUND", "That server is not installed in this team.");
  const tool = installation.tools.find((t) => t.name === toolName);
  const governance = { tools: Object.fromEntries(installation.tools.map((t) => [t.name, t])) };
  return decideCall(
    compiled,
    {
      teamId: actor.teamId,
      principal: { userId: memberUserId, ...subject },
      item: {
        kind: "tool",
        target: toolName,
        installationId,
        installationSlug: installation.slug,
        ...(tool?.annotations ? { annotations: tool.annotations } : {}),
      },
      arguments: args,
      client,
      token,
      revision,
      time: new Date(),
    },
    governance,
  );
}
