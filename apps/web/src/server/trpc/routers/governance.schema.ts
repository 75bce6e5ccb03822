import { z } from "zod";
import { GUARDRAIL_ACTIONS, GUARDRAIL_CATEGORIES } from "@switchboard/core/guardrails/rules";
import { QUOTA_MAX, QUOTA_SUBJECTS, QUOTA_WINDOW_NAMES, type QuotaWindow } from "@switchboard/core/governance";
import { statusSchema } from "./shared.schema";

/**
 * Output schemas of the governance router. tRPC strips what they do not list, so each describes exactly what its
 * service returns (test/trpc-contract.test.ts fails the typecheck when one drifts).
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
