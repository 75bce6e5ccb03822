import { z } from "zod";
import { id, page, paged, person, presentedField, statusSchema, transport, valuesInput } from "./shared.schema";

/** The instance router's inputs and answers: members' connections to the team's servers and what they offer. */

// --- inputs ----------------------------------------------------------------------------------------------------------

export const onInstance = z.object({ instanceId: id });
export const instancePage = z.object({ instanceId: id, ...page });
export const matrixInput = z.object({
  ...page,
  statuses: z.array(statusSchema).max(12).optional(),
  search: z.string().trim().max(200).optional(),
});
export const ofInstallationInput = z.object({ installationId: id, ...page });
export const mineInput = z.object(page);
export const mineOfInput = z.object({ installationId: id });
export const saveMyValuesInput = z.object({ instanceId: id, ...valuesInput });
export const toolsInput = instancePage.extend({ search: z.string().trim().max(200).optional() });
export const toolSchemaInput = z.object({ instanceId: id, toolId: id });

// --- answers ---------------------------------------------------------------------------------------------------------

const instanceRow = z.object({
  id: z.string(),
  installationId: z.string(),
  userId: z.string(),
  status: statusSchema,
  statusMessage: z.string().nullable(),
  statusChangedAt: z.date(),
  healthDegraded: z.boolean(),
  reconnectAttempt: z.number(),
  nextRetryAt: z.date().nullable(),
  lastError: z.string().nullable(),
  discoveredAt: z.date().nullable(),
  /** The revision the upstream speaks ("2026-07-28", "2025-11-25"), from its latest discovery. */
  protocolVersion: z.string().nullable(),
  toolCount: z.number(),
  totalTokens: z.number(),
});

export const instanceMatrix = z.object({
  installations: z.array(z.object({ id: z.string(), slug: z.string(), name: z.string() })),
  memberCount: z.number(),
  nextCursor: z.string().nullable(),
  rows: z.array(
    z.object({ membershipId: z.string(), role: z.string(), user: person, cells: z.record(z.string(), instanceRow) }),
  ),
});

export const instancesOfInstallation = paged(instanceRow.extend({ user: person }));

export const instanceDetail = instanceRow.extend({
  stderrTail: z.string().nullable(),
  installation: z.object({
    id: z.string(),
    teamId: z.string(),
    slug: z.string(),
    name: z.string(),
    template: z.object({ transport, oauth: z.boolean() }),
  }),
});

/** A tool count and its token cost in one catalogue view (core `catalogue-numbers`). */
const catalogueNumbers = z.object({ toolCount: z.number(), tokens: z.number() });

export const myInstances = paged(
  instanceRow.extend({
    installation: z.object({ id: z.string(), slug: z.string(), name: z.string(), transport, oauth: z.boolean() }),
    fields: z.array(presentedField),
    clientTools: catalogueNumbers,
  }),
);

export const mineOf = z.object({ instance: z.object({ id: z.string(), status: statusSchema }).nullable() });
export const savedMyValues = z.object({ fields: z.array(presentedField) });

export const myCost = z.object({
  servers: z.array(
    z.object({
      instanceId: z.string(),
      slug: z.string(),
      name: z.string(),
      status: statusSchema,
      toolCount: z.number(),
      totalTokens: z.number(),
    }),
  ),
  allTools: catalogueNumbers,
  routerMode: z.object({ toolCount: z.number(), tokens: z.number() }),
});

export const toolPage = paged(
  z.object({
    id: z.string(),
    name: z.string(),
    exposedName: z.string(),
    nameTooLong: z.boolean(),
    description: z.string(),
    title: z.string().nullable(),
    tokenCount: z.number(),
    served: z.boolean(),
  }),
).extend({ served: catalogueNumbers, offered: catalogueNumbers });

export const toolSchema = z.object({
  id: z.string(),
  name: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
  outputSchema: z.record(z.string(), z.unknown()).nullable(),
});

const resourceBase = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  title: z.string().nullable(),
  mimeType: z.string().nullable(),
});
export const resourcePage = paged(resourceBase.extend({ uri: z.string() }));
export const resourceTemplatePage = paged(resourceBase.extend({ uriTemplate: z.string() }));

export const eventPage = paged(
  z.object({
    id: z.string(),
    createdAt: z.date(),
    type: z.string(),
    payload: z.record(z.string(), z.unknown()),
    /** Who asked for a reconnect or restart: "you", a member's name, "a former member"; null when nobody did. */
    requestedByName: z.string().nullable(),
  }),
);

export const promptPage = paged(
  z.object({
    id: z.string(),
    name: z.string(),
    title: z.string().nullable(),
    description: z.string().nullable(),
    exposedName: z.string(),
    arguments: z.array(z.object({ name: z.string(), description: z.string().nullable(), required: z.boolean() })),
  }),
);

const statusCounts = z.partialRecord(statusSchema, z.number());

export const teamOverview = z.object({
  isAdmin: z.boolean(),
  memberCount: z.number(),
  instanceCount: z.number(),
  totals: statusCounts,
  failingCount: z.number(),
  stoppedCount: z.number(),
  attentionCount: z.number(),
  attention: z.array(
    z.object({
      instanceId: z.string(),
      status: statusSchema,
      label: z.string(),
      statusMessage: z.string().nullable(),
      statusChangedAt: z.date(),
      reconnectAttempt: z.number(),
      nextRetryAt: z.date().nullable(),
      own: z.boolean(),
      nextStep: z.string().nullable(),
      user: person,
      installation: z.object({ id: z.string(), slug: z.string(), name: z.string() }),
    }),
  ),
  servers: z.array(z.object({ id: z.string(), slug: z.string(), name: z.string(), counts: statusCounts })),
  members: z.array(
    z.object({ membershipId: z.string(), role: z.string(), joinedAt: z.date(), user: person, counts: statusCounts }),
  ),
  statuses: z.array(statusSchema),
});
