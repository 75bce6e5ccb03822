import { z } from "zod";
import { GUARDRAIL_ACTIONS, GUARDRAIL_CATEGORIES } from "@switchboard/core/guardrails/rules";
import {
  QUOTA_MAX,
  QUOTA_SUBJECTS,
  QUOTA_WINDOW_NAMES,
  TOOLSET_NAME_MAX,
  type QuotaWindow,
} from "@switchboard/core/governance";
import { id, statusSchema } from "./shared.schema";

/**
 * The governance router's inputs and answers. tRPC strips what an answer does not list, so each answer
 * describes exactly what its service returns (test/trpc-contract.test.ts fails the typecheck when one drifts).
 */

const json = z.record(z.string(), z.unknown());
const toolMode = z.enum(["all", "router"]);

export const governanceView = z.object({
  installationId: z.string(),
  slug: z.string(),
  newTools: z.enum(["on", "off_until_reviewed"]),
  pinTools: z.boolean(),
  awaitingReview: z.number(),
  tools: z.array(
    z.object({
      name: z.string(),
      title: z.string().nullable(),
      description: z.string(),
      tokenCount: z.number(),
      enabled: z.boolean(),
      exposedName: z.string().nullable(),
      exposedDescription: z.string().nullable(),
      namespacedName: z.string(),
      nameTooLong: z.boolean(),
      state: z.enum(["on", "off", "new_off", "awaiting_review", "rejected"]),
      reviewHash: z.string().nullable(),
      /** Each call waits for an approver (docs/approvals.md). */
      requiresApproval: z.boolean(),
    }),
  ),
  prompts: z.array(z.object({ name: z.string(), description: z.string(), enabled: z.boolean() })),
  resourceTemplates: z.array(
    z.object({ uriTemplate: z.string(), name: z.string(), description: z.string(), enabled: z.boolean() }),
  ),
});

export const toolReview = z.object({ name: z.string(), hash: z.string(), approved: json.nullable(), proposed: json });

export const auditTrail = z.array(
  z.object({ id: z.string(), actor: z.string(), action: z.string(), target: z.string(), createdAt: z.date() }),
);

export const myTools = z.array(
  z.object({
    installationId: z.string(),
    slug: z.string(),
    name: z.string(),
    status: statusSchema,
    tools: z.array(
      z.object({
        name: z.string(),
        exposedName: z.string(),
        description: z.string(),
        tokens: z.number(),
        hidden: z.boolean(),
        needsApproval: z.boolean(),
      }),
    ),
  }),
);

export const toolsets = z.array(
  z.object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    teamWide: z.boolean(),
    shadowed: z.boolean(),
    toolMode,
    path: z.string(),
    tools: z.array(z.object({ installationId: z.string(), toolName: z.string() })),
    cost: z.object({ toolCount: z.number(), tokens: z.number(), selectedTools: z.number() }),
  }),
);

export const savedToolset = z.object({ id: z.string() });

const quotaFields = {
  installationId: z.string().nullable(),
  toolName: z.string().nullable(),
  subject: z.enum(QUOTA_SUBJECTS),
  window: z.enum(QUOTA_WINDOW_NAMES as [QuotaWindow, ...QuotaWindow[]]),
  max: z.number().int(),
  writeMax: z.number().int().nullable(),
};

/** A team's limits on tool calls (core governance `ToolQuota`). */
export const toolQuotas = z.array(z.object({ id: z.string(), ...quotaFields }));

/** What an admin sends: the whole list; an `id` keeps that limit (and its counts). */
export const toolQuotasInput = z
  .array(
    z.object({
      id: z.string().min(1).max(64).optional(),
      ...quotaFields,
      installationId: z.string().min(1).max(64).nullable(),
      toolName: z.string().min(1).max(500).nullable(),
      max: z.number().int().min(1).max(QUOTA_MAX),
      writeMax: z.number().int().min(1).max(QUOTA_MAX).nullable(),
    }),
  )
  .max(200);

/** The member's own remaining quota (My servers). */
export const myQuotas = z.array(
  z.object({
    quotaId: z.string(),
    subject: z.enum(QUOTA_SUBJECTS),
    window: z.enum(QUOTA_WINDOW_NAMES as [QuotaWindow, ...QuotaWindow[]]),
    counts: z.enum(["calls", "writes"]),
    limit: z.number().int(),
    used: z.number().int(),
    resetAt: z.string().nullable(),
    installationId: z.string().nullable(),
    installationName: z.string().nullable(),
    toolName: z.string().nullable(),
    tokenName: z.string().nullable(),
  }),
);

/** A page of recent quota refusals (admins). */
export const quotaRefusals = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      at: z.string(),
      who: z.string(),
      installationId: z.string(),
      installationName: z.string(),
      tool: z.string(),
      message: z.string(),
    }),
  ),
  nextCursor: z.string().nullable(),
});

export const approvers = z.object({
  installationId: z.string(),
  approvers: z.array(z.object({ id: z.string(), name: z.string(), email: z.string() })),
});

/** An action per guardrail category (core guardrails; docs/guardrails.md). */
export const guardrailSettings = z.object(
  Object.fromEntries(GUARDRAIL_CATEGORIES.map((c) => [c, z.enum(GUARDRAIL_ACTIONS)])) as Record<
    (typeof GUARDRAIL_CATEGORIES)[number],
    z.ZodEnum<{ [A in (typeof GUARDRAIL_ACTIONS)[number]]: A }>
  >,
);
export const guardrails = z.object({ settings: guardrailSettings, defaults: guardrailSettings });

// --- inputs ---------------------------------------------------------------------------------------------------

const itemName = z.string().min(1).max(500);

export const onInstallation = z.object({ installationId: id });
export const saveInput = z.object({
  installationId: id,
  tools: z
    .array(
      z.object({
        name: itemName,
        enabled: z.boolean().optional(),
        exposedName: z.string().trim().max(200).nullable().optional(),
        exposedDescription: z.string().trim().max(4000).nullable().optional(),
      }),
    )
    .max(2000)
    .optional(),
  prompts: z
    .array(z.object({ name: itemName, enabled: z.boolean() }))
    .max(2000)
    .optional(),
  resourceTemplates: z
    .array(z.object({ uriTemplate: itemName, enabled: z.boolean() }))
    .max(2000)
    .optional(),
  newTools: z.enum(["on", "off_until_reviewed"]).optional(),
  pinTools: z.boolean().optional(),
});
export const reviewInput = z.object({ installationId: id, name: itemName });
export const decideInput = z.object({
  installationId: id,
  name: itemName,
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  decision: z.enum(["approved", "rejected"]),
});
export const setToolApprovalInput = z.object({ installationId: id, toolName: itemName, requiresApproval: z.boolean() });
export const setApproversInput = z.object({ installationId: id, approverIds: z.array(id).max(50) });
export const setQuotasInput = z.object({ quotas: toolQuotasInput });
export const setGuardrailsInput = z.object({ installationId: id, settings: guardrailSettings });
export const quotaRefusalsInput = z.object({
  installationId: id.optional(),
  cursor: z.string().max(64).nullish(),
  limit: z.number().int().min(1).max(100).default(25),
});
export const auditInput = z.object({ installationId: id.optional() });
export const setHiddenInput = z.object({ installationId: id, toolName: itemName, hidden: z.boolean() });
export const saveToolsetInput = z.object({
  id: id.nullish(),
  name: z.string().trim().min(2, "Give the toolset a name of at least 2 characters.").max(TOOLSET_NAME_MAX),
  description: z.string().trim().max(500).default(""),
  teamWide: z.boolean().default(false),
  toolMode: toolMode.default("all"),
  tools: z.array(z.object({ installationId: id, toolName: itemName })).max(2000),
});
export const deleteToolsetInput = z.object({ toolsetId: id });
