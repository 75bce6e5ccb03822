import "server-only";
import {
  checkStdioCommand,
  describeAllowedCommand,
  sameAllowedCommand,
  signupModeFromEnv,
  type AllowedCommand,
  type SignupMode,
} from "@switchboard/core/deployment";
import type { Db, DbTx } from "@switchboard/db/client";
import { grantLoopbackPorts, resolveSandboxPolicy } from "@switchboard/core/sandbox";
import { listStdioInstallationSandboxes } from "@switchboard/db/queries/installation";
import {
  changeCommandAllowList,
  changeSandboxLoopbackPorts,
  deploymentHasOwner,
  getDeploymentSettings,
  getStdioPolicy,
  grantDeploymentOwner,
  listDeploymentOwners,
  revokeDeploymentOwner,
  listStdioInstallationsForPolicy,
  listTeamsWithStdioPermission,
  setSignupMode as writeSignupMode,
  setTeamStdioAllowed,
} from "@switchboard/db/queries/deployment";
import { env } from "@switchboard/runtime/env";
import { AppError } from "../errors";
import type { UserActor } from "./actor";
import { enqueueConfigChanged } from "@switchboard/runtime/jobs";
import type { SandboxStatusReport } from "@switchboard/core/sandbox";
import { readSandboxStatus } from "./sandbox-status";
import { loopbackRule } from "./sandbox-loopback";

/** SIGNUP_MODE, when the operator set it, wins over the console's setting (see env.ts). */
function operatorSignupMode(): SignupMode | undefined {
  return signupModeFromEnv(env().SIGNUP_MODE);
}

export async function effectiveSignupMode(db: DbTx): Promise<{ mode: SignupMode; fixedByOperator: boolean }> {
  const fixed = operatorSignupMode();
  if (fixed) return { mode: fixed, fixedByOperator: true };
  return { mode: (await getDeploymentSettings(db)).signupMode, fixedByOperator: false };
}

/** For the sign-up page: whether the form can work for someone without an invitation. */
export async function signupAvailability(db: DbTx): Promise<{ mode: SignupMode; firstAccount: boolean }> {
  const { mode } = await effectiveSignupMode(db);
  return { mode, firstAccount: !(await deploymentHasOwner(db)) };
}

/**
 * The check the console makes wherever a stdio command is set or put to use (template create, installation
 * create): the same core policy the worker applies before every launch.
 */
export async function assertStdioAllowed(
  db: DbTx,
  {
    teamId,
    command,
    args,
    envKeys,
  }: { teamId: string; command: string; args: readonly string[]; envKeys: readonly string[] },
) {
  const policy = await getStdioPolicy(db, teamId);
  const decision = checkStdioCommand({
    command,
    args,
    envKeys,
    allowList: policy.allowList,
    teamStdioAllowed: policy.teamStdioAllowed,
  });
  if (!decision.allowed) throw new AppError("FORBIDDEN", decision.reason);
}

/** How the worker runs stdio servers, in one line for the deployment page (null: no worker reported yet). */
function sandboxSummary(report: SandboxStatusReport | null): { state: string; detail: string } | null {
  if (!report) return null;
  if (report.mode === "off") return { state: "off", detail: report.reason ?? "The operator turned the sandbox off." };
  if (!report.available) return { state: "unavailable", detail: report.reason ?? "The sandbox cannot start here." };
  const limits = report.enforcement ? Object.values(report.enforcement).map((e) => e.detail) : [];
  return {
    state: "on",
    detail: [...limits, ...(report.outbound ? [] : [report.reason ?? ""])].filter(Boolean).join(" "),
  };
}

/** What the operator set in the environment that matters for security: presence and safe values, never secrets. */
async function operatorSettings() {
  const e = env();
  return {
    signupMode: e.SIGNUP_MODE ?? null,
    appUrl: e.APP_URL,
    authRateLimit: e.AUTH_RATE_LIMIT,
    bridgeSecretSet: e.BRIDGE_SECRET !== undefined,
    // As the worker reported it at start: what each limit of a sandbox rests on here.
    sandbox: sandboxSummary(await readSandboxStatus()),
  };
}

export async function getSettings({ db }: { db: Db }) {
  const settings = await getDeploymentSettings(db);
  const signup = await effectiveSignupMode(db);
  const loopback = await loopbackRule(db);
  return {
    signupMode: signup.mode,
    signupModeFixedByOperator: signup.fixedByOperator,
    allowList: settings.allowList.map((entry) => ({ entry, label: describeAllowedCommand(entry) })),
    sandboxLoopback: {
      ports: loopback.deploymentPorts,
      operatorPorts: loopback.operatorPorts,
      reserved: loopback.reserved,
    },
    operator: await operatorSettings(),
  };
}

type PortChange = { db: Db; actor: UserActor; port: number };

/**
 * Allows sandboxes one more host loopback port (installation admins pick among them). Switchboard's own ports
 * are refused, whoever asks.
 */
export async function addSandboxLoopbackPort({ db, actor: { userId }, port }: PortChange) {
  const { refused } = grantLoopbackPorts([port], { allowed: [port], reserved: (await loopbackRule(db)).reserved });
  if (refused[0]) throw new AppError("FORBIDDEN", refused[0].reason);
  const { before } = await changeSandboxLoopbackPorts(db, { userId, change: (current) => [...current, port] });
  if (before.includes(port)) throw new AppError("CONFLICT", `Port ${port} is already on the list.`);
  await restartInstallationsListing(db, port);
  return getSettings({ db });
}

/** Takes a port back: the installations that were given it restart without it. */
export async function removeSandboxLoopbackPort({ db, actor: { userId }, port }: PortChange) {
  const { before } = await changeSandboxLoopbackPorts(db, {
    userId,
    change: (current) => current.filter((p) => p !== port),
  });
  if (!before.includes(port)) throw new AppError("NOT_FOUND", `Port ${port} is not on the list.`);
  await restartInstallationsListing(db, port);
  return getSettings({ db });
}

/** A port granted or taken back takes effect now for the installations that list it, not at their next restart. */
async function restartInstallationsListing(db: Db, port: number) {
  for (const i of await listStdioInstallationSandboxes(db)) {
    if (resolveSandboxPolicy(i.sandbox).loopbackPorts.includes(port))
      await enqueueConfigChanged({ installationId: i.id });
  }
}

export async function setSignupMode({ db, actor: { userId }, mode }: { db: Db; actor: UserActor; mode: SignupMode }) {
  if (operatorSignupMode())
    throw new AppError("CONFLICT", "The operator fixed the sign-up mode with SIGNUP_MODE; change it there.");
  await writeSignupMode(db, { mode, userId });
  return getSettings({ db });
}

export async function listTeams({ db, cursor, limit }: { db: Db; cursor?: string | null; limit: number }) {
  return listTeamsWithStdioPermission(db, { cursor, limit });
}

/** The message the worker's launch check leaves on an instance it refused (core CommandNotAllowedError). */
const REFUSED_PREFIX = "Not started:";

/**
 * After a settings change, installations whose stdio server the settings now refuse get a config change (the
 * worker restarts their instances and its launch check refuses them with a readable status: running processes
 * stop now rather than at their next restart), and installations with instances the worker refused before and
 * the settings now allow get one too (they start again without anyone pressing Restart).
 */
async function applyToStdioInstallations(db: Db, where: { teamId?: string }) {
  const installations = await listStdioInstallationsForPolicy(db, where);
  const policies = new Map<string, Awaited<ReturnType<typeof getStdioPolicy>>>();
  for (const i of installations) {
    const policy = policies.get(i.teamId) ?? (await getStdioPolicy(db, i.teamId));
    policies.set(i.teamId, policy);
    const decision = checkStdioCommand({
      command: i.template.command ?? "",
      args: i.template.args,
      envKeys: i.template.fields.map((f) => f.key),
      allowList: policy.allowList,
      teamStdioAllowed: policy.teamStdioAllowed,
    });
    const refused = (x: { status: string; statusMessage: string | null }) =>
      x.status === "error" && (x.statusMessage ?? "").startsWith(REFUSED_PREFIX);
    const change = decision.allowed ? i.instances.some(refused) : i.instances.some((x) => !refused(x));
    if (change) await enqueueConfigChanged({ installationId: i.id });
  }
}

export async function setTeamStdio({ db, teamId, allowed }: { db: Db; teamId: string; allowed: boolean }) {
  if (!(await setTeamStdioAllowed(db, { teamId, allowed }))) throw new AppError("NOT_FOUND", "Team not found.");
  await applyToStdioInstallations(db, { teamId });
  return { teamId, stdioAllowed: allowed };
}

export async function addAllowedCommand({
  db,
  actor: { userId },
  entry,
}: {
  db: Db;
  actor: UserActor;
  entry: AllowedCommand;
}) {
  let duplicate = false;
  await changeCommandAllowList(db, {
    userId,
    change: (current) => {
      duplicate = current.some((c) => sameAllowedCommand(c, entry));
      return duplicate ? current : [...current, entry];
    },
  });
  if (duplicate) throw new AppError("CONFLICT", `“${describeAllowedCommand(entry)}” is already on the list.`);
  await applyToStdioInstallations(db, {});
  return getSettings({ db });
}

export async function removeAllowedCommand({
  db,
  actor: { userId },
  entry,
}: {
  db: Db;
  actor: UserActor;
  entry: AllowedCommand;
}) {
  let found = false;
  await changeCommandAllowList(db, {
    userId,
    change: (current) => {
      const next = current.filter((c) => !sameAllowedCommand(c, entry));
      found = next.length < current.length;
      return next;
    },
  });
  if (!found) throw new AppError("NOT_FOUND", `“${describeAllowedCommand(entry)}” is not on the list.`);
  await applyToStdioInstallations(db, {});
  return getSettings({ db });
}

export async function listOwners({ db }: { db: Db }) {
  return listDeploymentOwners(db);
}

export async function addOwner({ db, email }: { db: Db; email: string }) {
  const user = await grantDeploymentOwner(db, email);
  if (!user) throw new AppError("NOT_FOUND", `There is no account for ${email}; they need to sign up first.`);
  return listDeploymentOwners(db);
}

export async function removeOwner({ db, userId }: { db: Db; userId: string }) {
  const outcome = await revokeDeploymentOwner(db, userId);
  if (outcome === "not_owner") throw new AppError("NOT_FOUND", "That account is not a deployment owner.");
  if (outcome === "last_owner")
    throw new AppError("CONFLICT", "A deployment needs at least one owner: add another before removing this one.");
  return listDeploymentOwners(db);
}
