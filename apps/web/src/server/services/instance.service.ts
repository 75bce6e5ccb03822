import "server-only";
import { eventPayloadForViewer, statusMessageForViewer } from "@switchboard/core/events";
import { isToolNameTooLong, namespaceToolName } from "@switchboard/core/names";
import { catalogueNumbers, ROUTER_TOOLS, routerModeTokenCost } from "@switchboard/core/proxy";
import type { InstanceStatus } from "@switchboard/core/status";
import type { Db } from "@switchboard/db/client";
import {
  findInstanceTool,
  listInstancePrompts,
  listInstanceResources,
  listInstanceResourceTemplates,
  listInstanceTools,
} from "@switchboard/db/queries/catalogue";
import { listInstanceEventsPage } from "@switchboard/db/queries/instance-events";
import { findInstallation } from "@switchboard/db/queries/installation";
import {
  findMemberInstanceConfig,
  listInstancesOfInstallation,
  listMemberInstances,
  loadTeamMatrix,
  writeInstanceValues,
} from "@switchboard/db/queries/instance-views";
import { isTeamAdminRole, memberScope } from "@switchboard/core/accounts";
import { teamMemberNames } from "@switchboard/db/queries/team";
import { AppError } from "../errors";
import { enqueueConfigChanged } from "@switchboard/runtime/jobs";
import { presentFields, sealValues } from "./config-values";
import { instanceForActor, type Actor } from "./instance-access";
import { instanceCatalogueViews, memberCatalogueNumbers } from "./member-catalogue";

type PageInput = { cursor?: string | null; limit: number };

/**
 * Raw upstream error text (lastError, a failure status's message) and stderr tails are for admins: a plain
 * member sees the status with a readable message (core statusMessageForViewer), not another party's words.
 */
export function withoutRawDetail<T extends { status: string; statusMessage: string | null; lastError?: string | null }>(
  actor: Actor,
  instance: T,
): T {
  if (isTeamAdminRole(actor.role)) return instance;
  return {
    ...instance,
    statusMessage: statusMessageForViewer(instance.status, instance.statusMessage, { admin: false }),
    lastError: null,
  };
}

/** Members x installations; a member only gets their own row. */
export async function matrix({
  db,
  actor,
  statuses,
  search,
  ...page
}: { db: Db; actor: Actor; statuses?: InstanceStatus[]; search?: string } & PageInput) {
  const m = await loadTeamMatrix(db, {
    teamId: actor.teamId,
    userId: memberScope(actor),
    statuses,
    search,
    ...page,
  });
  return {
    installations: m.installations,
    memberCount: m.memberCount,
    nextCursor: m.nextCursor,
    rows: m.rows.map((r) => ({
      membershipId: r.id,
      role: r.role,
      user: r.user,
      cells: Object.fromEntries(
        m.instances.filter((i) => i.userId === r.user.id).map((i) => [i.installationId, withoutRawDetail(actor, i)]),
      ),
    })),
  };
}

/** Instances of an installation: admins see every member's, a member their own. */
export async function ofInstallation({
  db,
  actor,
  installationId,
  ...page
}: { db: Db; actor: Actor; installationId: string } & PageInput) {
  if (!(await findInstallation(db, { teamId: actor.teamId, installationId })))
    throw new AppError("NOT_FOUND", "Installed server not found.");
  const p = await listInstancesOfInstallation(db, {
    installationId,
    userId: memberScope(actor),
    ...page,
  });
  return { ...p, items: p.items.map((i) => withoutRawDetail(actor, i)) };
}

export async function get({ db, actor, instanceId }: { db: Db; actor: Actor; instanceId: string }) {
  const i = await instanceForActor(db, actor, instanceId);
  return { ...withoutRawDetail(actor, i), stderrTail: isTeamAdminRole(actor.role) ? i.stderrTail : null };
}

/**
 * The caller's own instance of one installation, or null while the worker has not created it yet (the install
 * wizard waits on this to offer "Connect your account").
 */
export async function mineOf({ db, actor, installationId }: { db: Db; actor: Actor; installationId: string }) {
  if (!(await findInstallation(db, { teamId: actor.teamId, installationId })))
    throw new AppError("NOT_FOUND", "Installed server not found.");
  const { items } = await listInstancesOfInstallation(db, { installationId, userId: actor.userId, limit: 1 });
  const own = items[0];
  return { instance: own ? { id: own.id, status: own.status } : null };
}

/** The caller's own instances with their personal settings (secrets masked). */
export async function mine({ db, actor, ...page }: { db: Db; actor: Actor } & PageInput) {
  const [p, numbers] = await Promise.all([
    listMemberInstances(db, { teamId: actor.teamId, userId: actor.userId, ...page }),
    memberCatalogueNumbers(db, actor),
  ]);
  return {
    nextCursor: p.nextCursor,
    items: p.items.map(({ values, installation, ...cell }) => ({
      ...withoutRawDetail(actor, cell),
      /** What this member's clients see of the instance (core catalogue view `member`). */
      clientTools: numbers.servers.get(cell.id) ?? { toolCount: 0, tokens: 0 },
      installation: {
        id: installation.id,
        slug: installation.slug,
        name: installation.name,
        transport: installation.template.transport,
        oauth: installation.template.oauth,
      },
      fields: presentFields(installation.template.fields, values),
    })),
  };
}

/** Saves the caller's personal values on their own instance; the worker then provisions or restarts it. */
export async function saveMyValues({
  db,
  actor,
  instanceId,
  values,
  clear,
}: {
  db: Db;
  actor: Actor;
  instanceId: string;
  values: Record<string, string>;
  clear: string[];
}) {
  const found = await findMemberInstanceConfig(db, { teamId: actor.teamId, userId: actor.userId, instanceId });
  if (!found) throw new AppError("NOT_FOUND", "Server instance not found among yours.");
  const fields = found.installation.template.fields;
  const { upserts, removals } = sealValues({
    fields,
    stored: found.values,
    submitted: values,
    clear,
    requireAll: false,
  });
  await writeInstanceValues(db, { instanceId, upserts, removals });
  await enqueueConfigChanged({ installationId: found.installationId, userId: actor.userId });
  const after = await findMemberInstanceConfig(db, { teamId: actor.teamId, userId: actor.userId, instanceId });
  return { fields: presentFields(fields, after?.values ?? []) };
}

export async function tools({
  db,
  actor,
  instanceId,
  search,
  ...page
}: { db: Db; actor: Actor; instanceId: string; search?: string } & PageInput) {
  const instance = await instanceForActor(db, actor, instanceId);
  const [p, views] = await Promise.all([
    listInstanceTools(db, { instanceId, search, ...page }),
    instanceCatalogueViews(db, {
      teamId: actor.teamId,
      userId: instance.userId,
      installationSlug: instance.installation.slug,
    }),
  ]);
  const served = new Map(views.served.map((t) => [t.name, t]));
  const offered = new Map(views.offered.map((t) => [t.name, t]));
  return {
    nextCursor: p.nextCursor,
    /** What the installation serves (after governance) and what the server offers (core catalogue views). */
    served: catalogueNumbers(views.served),
    offered: catalogueNumbers(views.offered),
    // Every tool the server offers, each as the installation serves it (renamed, described anew) or marked off.
    items: p.items.map((t) => {
      const view = served.get(t.name) ?? offered.get(t.name);
      const exposedName = view?.listedName ?? namespaceToolName(instance.installation.slug, t.name);
      return {
        ...t,
        description: view?.description ?? t.description,
        tokenCount: view?.tokens ?? t.tokenCount,
        served: served.has(t.name),
        exposedName,
        nameTooLong: isToolNameTooLong(exposedName),
      };
    }),
  };
}

export async function toolSchema({
  db,
  actor,
  instanceId,
  toolId,
}: {
  db: Db;
  actor: Actor;
  instanceId: string;
  toolId: string;
}) {
  await instanceForActor(db, actor, instanceId);
  const tool = await findInstanceTool(db, { instanceId, toolId });
  if (!tool) throw new AppError("NOT_FOUND", "Tool not found.");
  return {
    id: tool.id,
    name: tool.name,
    inputSchema: tool.inputSchema as Record<string, unknown>,
    outputSchema: (tool.outputSchema ?? null) as Record<string, unknown> | null,
  };
}

/** One instance's page of something, once the caller may see the instance. */
type InstancePage = { db: Db; actor: Actor; instanceId: string } & PageInput;

async function instancePage<T>(
  { db, actor, instanceId, ...page }: InstancePage,
  list: (db: Db, query: { instanceId: string } & PageInput) => Promise<T>,
): Promise<T> {
  await instanceForActor(db, actor, instanceId);
  return list(db, { instanceId, ...page });
}

export const resources = (input: InstancePage) => instancePage(input, listInstanceResources);

/** The prompts the instance's server offers (discovered with its tools), with their arguments. */
export async function prompts(input: InstancePage) {
  const instance = await instanceForActor(input.db, input.actor, input.instanceId);
  const p = await listInstancePrompts(input.db, {
    instanceId: input.instanceId,
    cursor: input.cursor,
    limit: input.limit,
  });
  return {
    nextCursor: p.nextCursor,
    // Clients see prompts under the same namespace as tools.
    items: p.items.map((pr) => ({
      ...pr,
      exposedName: namespaceToolName(instance.installation.slug, pr.name),
      arguments: promptArguments(pr.arguments),
    })),
  };
}

function promptArguments(raw: unknown): Array<{ name: string; description: string | null; required: boolean }> {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((a) =>
    a && typeof a === "object" && typeof (a as { name?: unknown }).name === "string"
      ? [
          {
            name: String((a as { name: string }).name),
            description:
              typeof (a as { description?: unknown }).description === "string"
                ? String((a as { description: string }).description)
                : null,
            required: (a as { required?: unknown }).required === true,
          },
        ]
      : [],
  );
}

export const resourceTemplates = (input: InstancePage) => instancePage(input, listInstanceResourceTemplates);

export async function events(input: InstancePage) {
  const { db, actor } = input;
  const p = await instancePage(input, listInstanceEventsPage);
  const admin = isTeamAdminRole(actor.role);
  // Who asked for a reconnect or restart, by name (someone who has left the team stays unnamed).
  const askedBy = [
    ...new Set(
      p.items
        .map((e) => (e.payload as { requestedBy?: unknown } | null)?.requestedBy)
        .filter((v): v is string => typeof v === "string"),
    ),
  ];
  const names = await teamMemberNames(db, { teamId: actor.teamId, userIds: askedBy });
  return {
    nextCursor: p.nextCursor,
    items: p.items.map((e) => {
      const payload = eventPayloadForViewer(e.type, (e.payload ?? {}) as Record<string, unknown>, { admin });
      const by = typeof payload.requestedBy === "string" ? payload.requestedBy : null;
      return {
        ...e,
        payload,
        requestedByName: by ? (by === actor.userId ? "you" : (names.get(by) ?? "a former member")) : null,
      };
    }),
  };
}

/**
 * What the member's catalogue costs a client's context: every tool their clients see on online servers (core
 * catalogue view `member`, after governance and their own hidden tools), or the four router-mode tools.
 */
export async function myCost({ db, actor }: { db: Db; actor: Actor }) {
  const { rows, servers, total } = await memberCatalogueNumbers(db, actor);
  return {
    servers: rows.map((r) => ({
      instanceId: r.instanceId,
      slug: r.slug,
      name: r.name,
      status: r.status,
      toolCount: servers.get(r.instanceId)?.toolCount ?? 0,
      totalTokens: servers.get(r.instanceId)?.tokens ?? 0,
    })),
    allTools: total,
    routerMode: { toolCount: ROUTER_TOOLS.length, tokens: routerModeTokenCost() },
  };
}
