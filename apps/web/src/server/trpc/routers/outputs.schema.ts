import { guardrailFindingSchema } from "@switchboard/core/guardrails/rules";
import type { JsonValue } from "@switchboard/db/client";
import { z } from "zod";
import { CALL_OUTCOMES } from "~/lib/request-log";
import { installationView, presentedField, statusSchema } from "./console.schema";

/**
 * Output schemas of the console's procedures that had none (each router's own `*.schema.ts` keeps the older
 * ones). tRPC parses every answer with them and strips what they do not list, so each must describe what its
 * service returns: test/trpc-contract.test.ts fails the typecheck when one drifts from its service's type.
 */

export const ok = z.object({ ok: z.literal(true) });
export const queued = z.object({ queued: z.literal(true) });
/** A per-instance action was queued; the status it found is the baseline its outcome is read against. */
export const actionQueued = queued.extend({ status: statusSchema, statusChangedAt: z.date() });

const transport = z.enum(["stdio", "sse", "streamable_http"]);
const nextCursor = z.string().nullable();
const person = z.object({ id: z.string(), name: z.string(), email: z.string() });
const paged = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), nextCursor });

// --- me -------------------------------------------------------------------------------------------------------

export const meOutput = z
  .object({ id: z.string(), name: z.string(), email: z.string(), emailVerified: z.boolean() })
  .nullable();

// --- catalogue ------------------------------------------------------------------------------------------------

export const templateView = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  description: z.string(),
  transport,
  command: z.string().nullable(),
  args: z.array(z.string()),
  url: z.string().nullable(),
  oauth: z.boolean(),
  installationCount: z.number(),
  installations: z.array(z.object({ id: z.string(), name: z.string(), slug: z.string() })),
  createdAt: z.date(),
  fields: z.array(
    z.object({
      key: z.string(),
      label: z.string(),
      tier: z.enum(["team", "user"]),
      kind: z.enum(["arg", "env", "header", "query"]),
      type: z.enum(["string", "number", "boolean", "url"]),
      required: z.boolean(),
      secret: z.boolean(),
      defaultValue: z.string().nullable(),
      description: z.string(),
      optionValues: z.enum(["refuse", "after_separator"]),
    }),
  ),
});
export const templatePage = paged(templateView);

// --- installation ---------------------------------------------------------------------------------------------

export const installationPage = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      slug: z.string(),
      name: z.string(),
      requestLogging: z.boolean(),
      createdAt: z.date(),
      template: z.object({ id: z.string(), name: z.string(), transport }),
      statusCounts: z.record(z.string(), z.number()),
      /** The caller's own instance's status (null: none yet). */
      ownStatus: statusSchema.nullable(),
      instanceCount: z.number(),
    }),
  ),
  nextCursor,
  /** How the worker runs stdio servers, when the team has a stdio installation. */
  sandbox: z.object({ mode: z.enum(["on", "off"]), available: z.boolean() }).nullable(),
});
export { installationView };

// --- instance -------------------------------------------------------------------------------------------------

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
  nextCursor,
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

// --- ops ------------------------------------------------------------------------------------------------------

const outcome = z.enum(CALL_OUTCOMES);
/** The token the call came with: a personal token or an OAuth client's grant (its name is the client's). */
const callToken = z.object({ name: z.string(), kind: z.enum(["personal", "oauth"]) }).nullable();

/**
 * One installation's log or (ops.teamRequestLog) the team's: each call names its server, the name the client
 * called (`requested`, null in rows older than it) and the upstream's (`target`); `total` counts every match.
 */
export const requestLogPage = paged(
  z.object({
    id: z.string(),
    createdAt: z.date(),
    installation: z.object({ id: z.string(), name: z.string(), slug: z.string() }),
    user: person,
    token: callToken,
    method: z.string(),
    target: z.string(),
    requested: z.string().nullable(),
    durationMs: z.number(),
    attempts: z.number(),
    outcome,
  }),
).extend({ total: z.number().int() });

/** How many instances a bulk action asked the worker to act on. */
export const bulkCount = z.object({ count: z.number().int() });

export const requestLogEntry = z.object({
  id: z.string(),
  createdAt: z.date(),
  installationId: z.string(),
  user: person,
  token: callToken,
  method: z.string(),
  target: z.string(),
  requested: z.string().nullable(),
  /** The call's arguments as stored: any JSON value (typed as the database column is). */
  arguments: z.custom<JsonValue>((value) => z.json().safeParse(value).success, "not JSON"),
  resultSummary: z.string().nullable(),
  resultBytes: z.number(),
  durationMs: z.number(),
  attempts: z.number(),
  outcome,
  errorMessage: z.string().nullable(),
  guardrailFindings: z.array(guardrailFindingSchema),
});

// --- team and invitations -------------------------------------------------------------------------------------

export const memberPage = paged(
  z.object({ id: z.string(), role: z.string(), joinedAt: z.date(), lastActiveAt: z.date().nullable(), user: person }),
);

export const pendingInvitations = z.array(
  z.object({
    id: z.string(),
    email: z.string(),
    role: z.string(),
    expiresAt: z.date(),
    invitedBy: z.string(),
    url: z.string(),
  }),
);

export const sentInvitation = z.object({
  id: z.string(),
  email: z.string(),
  role: z.enum(["member", "admin", "owner"]),
  expiresAt: z.date(),
  url: z.string(),
});

export const invitationView = z.object({
  id: z.string(),
  teamName: z.string(),
  teamSlug: z.string(),
  invitedBy: z.string(),
  role: z.string(),
  email: z.string(),
  status: z.enum(["pending", "accepted", "rejected", "canceled", "expired"]),
  forYou: z.boolean(),
});

export const acceptedInvitation = z.object({ teamSlug: z.string() });
