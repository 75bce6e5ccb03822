import "server-only";
import type { Db } from "@switchboard/db/client";
import { getCipher } from "@switchboard/db/crypto";
import { isUniqueViolation } from "@switchboard/db/errors";
import {
  deleteInstallation,
  findInstallation,
  insertInstallation,
  installationSlugTaken,
  listInstallations,
  updateInstallationSandbox,
  updateInstallationSettings,
  writeInstallationValues,
} from "@switchboard/db/queries/installation";
import { writeInstallationOAuthClient } from "@switchboard/db/queries/upstream-oauth";
import { grantLoopbackPorts, sandboxSettingsSchema, type SandboxSettings } from "@switchboard/core/sandbox";
import { findTemplate } from "@switchboard/db/queries/template";
import {
  enqueueConfigChanged,
  enqueueInstallationCreated,
  enqueueInstallationRemoved,
} from "@switchboard/runtime/jobs";
import { urlRefusal } from "@switchboard/runtime/egress";
import { AppError } from "../errors";
import type { Actor } from "./actor";
import { presentFields, sealValues } from "./config-values";
import type { TemplateInput } from "./catalogue.service";
import * as catalogue from "./catalogue.service";
import { assertStdioAllowed } from "./deployment.service";
import { readSandboxStatus } from "./sandbox-status";
import { loopbackRule, type LoopbackRule } from "./sandbox-loopback";

type Installation = NonNullable<Awaited<ReturnType<typeof findInstallation>>>;

type SandboxReport = Awaited<ReturnType<typeof readSandboxStatus>>;

function present(i: Installation, host: SandboxReport = null, loopback?: LoopbackRule) {
  const teamFields = i.template.fields.filter((f) => f.tier === "team");
  return {
    id: i.id,
    slug: i.slug,
    name: i.name,
    requestLogging: i.requestLogging,
    createdAt: i.createdAt,
    instanceCount: i._count.instances,
    template: {
      id: i.template.id,
      name: i.template.name,
      transport: i.template.transport,
      oauth: i.template.oauth,
      target:
        i.template.transport === "stdio" ? [i.template.command, ...i.template.args].join(" ") : (i.template.url ?? ""),
    },
    teamFields: presentFields(teamFields, i.values),
    memberFields: i.template.fields
      .filter((f) => f.tier === "user")
      .map((f) => ({
        key: f.key,
        label: f.label || f.key,
        required: f.required,
        secret: f.secret,
        description: f.description,
      })),
    // Only a local command runs in a sandbox; `host` is how the worker runs them (null: no worker reported).
    sandbox:
      i.template.transport === "stdio"
        ? {
            settings: storedSandboxSettings(i.sandbox),
            loopback: presentLoopback(storedSandboxSettings(i.sandbox), loopback),
            host: host && {
              mode: host.mode,
              available: host.available,
              outbound: host.outbound,
              reason: host.reason ?? null,
              defaults: host.defaults ?? null,
              maxDiskMb: host.maxDiskMb ?? null,
              enforcement: host.enforcement ?? null,
            },
          }
        : null,
  };
}

/**
 * The loopback ports an admin may pick for this installation, and those it lists that a launch would not grant
 * (stored before the deployment named its ports, or taken back since), each with the reason.
 */
function presentLoopback(settings: SandboxSettings, rule: LoopbackRule | undefined) {
  if (!rule) return { allowed: [], notInEffect: [] };
  return { allowed: rule.allowed, notInEffect: grantLoopbackPorts(settings.loopbackPorts ?? [], rule).refused };
}

/** The stored settings as the admin set them; a value that no longer validates shows as the defaults. */
function storedSandboxSettings(stored: unknown): SandboxSettings {
  const parsed = sandboxSettingsSchema.safeParse(stored ?? {});
  return parsed.success ? parsed.data : {};
}

async function load(db: Db, teamId: string, installationId: string) {
  const found = await findInstallation(db, { teamId, installationId });
  if (!found) throw new AppError("NOT_FOUND", "Installed server not found.");
  return found;
}

export async function list({
  db,
  actor,
  search,
  cursor,
  limit,
}: {
  db: Db;
  actor: Actor;
  search?: string;
  cursor?: string | null;
  limit: number;
}) {
  const { teamId } = actor;
  const page = await listInstallations(db, { teamId, search, cursor, limit });
  const host = page.items.some((i) => i.template.transport === "stdio") ? await readSandboxStatus() : null;
  return {
    nextCursor: page.nextCursor,
    /** How the worker runs stdio servers (null: no stdio installation on this page, or no worker reported yet). */
    sandbox: host && { mode: host.mode, available: host.available },
    items: page.items.map((i) => {
      // Everyone's instances by status; the caller's own is also named, so the page can speak to them about it.
      const counts: Record<string, number> = {};
      for (const { status } of i.instances) counts[status] = (counts[status] ?? 0) + 1;
      const ownStatus = i.instances.find((x) => x.userId === actor.userId)?.status ?? null;
      return {
        id: i.id,
        slug: i.slug,
        name: i.name,
        requestLogging: i.requestLogging,
        createdAt: i.createdAt,
        template: i.template,
        statusCounts: counts,
        ownStatus,
        instanceCount: i.instances.length,
      };
    }),
  };
}

export async function get({ db, actor, installationId }: { db: Db; actor: Actor; installationId: string }) {
  const { teamId } = actor;
  const found = await load(db, teamId, installationId);
  if (found.template.transport !== "stdio") return present(found);
  const host = await readSandboxStatus();
  return present(found, host, await loopbackRule(db, host));
}

/**
 * Replaces the sandbox settings of a stdio installation (limits, outbound network, allowed host ports) and
 * restarts its instances so they run under the new ones.
 */
export async function updateSandbox({
  db,
  actor,
  installationId,
  settings,
}: {
  db: Db;
  actor: Actor;
  installationId: string;
  settings: SandboxSettings;
}) {
  const { teamId } = actor;
  const found = await load(db, teamId, installationId);
  if (found.template.transport !== "stdio")
    throw new AppError("INVALID_INPUT", "Only servers that run as a local command have a sandbox.");
  // The operator's ceiling, as the worker reported it (the worker holds a stored value to it in any case).
  const maxDiskMb = settings.diskMb === undefined ? undefined : (await readSandboxStatus())?.maxDiskMb;
  if (maxDiskMb !== undefined && settings.diskMb! > maxDiskMb)
    throw new AppError("INVALID_INPUT", `The disk quota can be at most ${maxDiskMb} MB on this deployment.`);
  // A team picks among the host services the deployment allows; Switchboard's own are refused whoever asks.
  if (settings.loopbackPorts?.length) {
    const { refused } = grantLoopbackPorts(settings.loopbackPorts, await loopbackRule(db));
    if (refused[0]) throw new AppError("FORBIDDEN", refused[0].reason);
  }
  await updateInstallationSandbox(db, { teamId, installationId, sandbox: { ...settings } });
  await enqueueConfigChanged({ installationId });
  return get({ db, actor, installationId });
}

/**
 * Writes the installation with its sealed team values, then asks the worker to create one instance per member
 * (processInstallationCreated decides provisioning vs awaiting_user_config; the console creates none).
 */
export async function create({
  db,
  actor,
  input,
}: {
  db: Db;
  actor: Actor;
  input: Omit<InstallInput, "templateId"> & { templateId?: string; template?: TemplateInput };
}) {
  if (!input.template) {
    if (!input.templateId) throw new AppError("INVALID_INPUT", "Choose a server from the catalogue or define one.");
    return install({ db, actor, input: { ...input, templateId: input.templateId } });
  }
  // A server defined in the wizard is written to the catalogue only together with its installation: when the
  // install is refused, the new template goes too, so defining the same server again never meets "already exists".
  const template = await catalogue.create({ db, actor, input: input.template });
  try {
    return await install({ db, actor, input: { ...input, templateId: template.id } });
  } catch (err) {
    await catalogue.remove({ db, actor, templateId: template.id });
    throw err;
  }
}

interface InstallInput {
  templateId: string;
  slug: string;
  name: string;
  requestLogging: boolean;
  values: Record<string, string>;
  oauthClient?: { clientId: string; clientSecret?: string };
}

async function install({ db, actor, input }: { db: Db; actor: Actor; input: InstallInput }) {
  const { teamId, userId } = actor;
  const template = await findTemplate(db, { teamId, templateId: input.templateId });
  if (!template) throw new AppError("NOT_FOUND", "Server template not found.");
  // The deployment's settings may have changed since the template was added: check again before installing.
  if (template.transport === "stdio") {
    const envKeys = template.fields.filter((f) => f.kind === "env").map((f) => f.key);
    await assertStdioAllowed(db, { teamId, command: template.command ?? "", args: template.args, envKeys });
  }
  // A template saved before the egress rules (or under looser ones) is checked again when it is installed.
  const refusal = template.transport !== "stdio" && template.url ? urlRefusal(template.url) : null;
  if (refusal) throw new AppError("INVALID_INPUT", refusal);
  if (input.oauthClient && !template.oauth)
    throw new AppError("INVALID_INPUT", "This server does not use OAuth, so it takes no OAuth client.");
  if (await installationSlugTaken(db, { teamId, slug: input.slug })) {
    throw new AppError(
      "CONFLICT",
      `“${input.slug}” is already installed in this team. Pick another slug (it prefixes the tool names).`,
    );
  }
  const { upserts } = sealValues({
    fields: template.fields.filter((f) => f.tier === "team"),
    stored: [],
    submitted: input.values,
    requireAll: true,
  });
  let created: { id: string };
  try {
    created = await insertInstallation(db, {
      teamId,
      templateId: template.id,
      slug: input.slug,
      name: input.name,
      requestLogging: input.requestLogging,
      createdById: userId,
      values: upserts,
    });
  } catch (err) {
    // Two admins installing with the same slug at once: the unique index decides.
    if (isUniqueViolation(err))
      throw new AppError("CONFLICT", `“${input.slug}” is already installed in this team.`, { cause: err });
    throw err;
  }
  // Before the worker creates the instances, so no member's flow can register a client meanwhile.
  if (input.oauthClient) {
    const { clientId, clientSecret } = input.oauthClient;
    await writeInstallationOAuthClient(db, getCipher(), {
      teamId,
      installationId: created.id,
      clientId,
      secret: clientSecret ? clientSecret : null,
    });
  }
  await enqueueInstallationCreated({ installationId: created.id });
  return get({ db, actor, installationId: created.id });
}

/** New team values restart every instance of the installation (the worker moves them through restarting). */
export async function updateTeamValues({
  db,
  actor,
  installationId,
  values,
  clear,
}: {
  db: Db;
  actor: Actor;
  installationId: string;
  values: Record<string, string>;
  clear: string[];
}) {
  const { teamId } = actor;
  const found = await load(db, teamId, installationId);
  const { upserts, removals } = sealValues({
    fields: found.template.fields.filter((f) => f.tier === "team"),
    stored: found.values,
    submitted: values,
    clear,
    requireAll: true,
  });
  await writeInstallationValues(db, { installationId, upserts, removals });
  await enqueueConfigChanged({ installationId });
  return get({ db, actor, installationId });
}

export async function updateSettings({
  db,
  actor,
  installationId,
  requestLogging,
  name,
}: {
  db: Db;
  actor: Actor;
  installationId: string;
  requestLogging?: boolean;
  name?: string;
}) {
  const { teamId } = actor;
  const ok = await updateInstallationSettings(db, {
    teamId,
    installationId,
    data: { ...(requestLogging !== undefined ? { requestLogging } : {}), ...(name ? { name } : {}) },
  });
  if (!ok) throw new AppError("NOT_FOUND", "Installed server not found.");
  return get({ db, actor, installationId });
}

/** Deletes first (the rows cascade), then tells the worker which instances to stop: it may not find them anymore. */
export async function remove({ db, actor, installationId }: { db: Db; actor: Actor; installationId: string }) {
  const { teamId } = actor;
  const removed = await deleteInstallation(db, { teamId, installationId });
  if (!removed) throw new AppError("NOT_FOUND", "Installed server not found.");
  await enqueueInstallationRemoved({ installationId, teamId, instanceIds: removed.instanceIds });
  return { instanceIds: removed.instanceIds };
}
