import { z } from "zod";
import { id } from "./shared.schema";

/** The policies router's inputs and answers (each answer lists exactly what its service returns). */

/** A policy text: Cedar, at most 64 KiB. */
export const policyText = z.string().max(65_536);

export const currentPolicies = z.object({
  version: z.number().nullable(),
  text: z.string().nullable(),
  defaults: z.string(),
  savedBy: z.string().nullable(),
  savedAt: z.string().nullable(),
});

export const policyHistory = z.array(
  z.object({ version: z.number(), text: z.string().nullable(), savedBy: z.string(), savedAt: z.string() }),
);

export const policyProblems = z.object({
  problems: z.array(
    z.object({ line: z.number(), column: z.number(), message: z.string(), policyId: z.string().optional() }),
  ),
});

export const savedPolicies = z.object({ version: z.number() });

export const panelChoices = z.object({
  members: z.array(z.object({ userId: z.string(), role: z.string(), name: z.string(), email: z.string() })),
  installations: z.array(
    z.object({
      id: z.string(),
      slug: z.string(),
      name: z.string(),
      tools: z.array(
        z.object({
          name: z.string(),
          annotations: z.record(z.string(), z.unknown()).nullable(),
          requiresApproval: z.boolean(),
        }),
      ),
    }),
  ),
});

export const callDecision = z.object({
  effect: z.enum(["permit", "forbid", "approval"]),
  reason: z.string().optional(),
  policyId: z.string().optional(),
  policyVersion: z.string(),
  hidden: z.boolean().optional(),
});

// --- inputs ---------------------------------------------------------------------------------------------------

export const checkInput = z.object({ text: policyText });
export const saveInput = z.object({ text: policyText.nullable(), expectedVersion: z.number().int().min(1).nullable() });
export const whatWouldHappenInput = z.object({
  memberUserId: id,
  installationId: id,
  toolName: z.string().min(1).max(500),
  arguments: z.record(z.string(), z.unknown()),
  text: policyText.optional(),
  client: z.string().min(1).max(200).default("unknown"),
  token: z.enum(["token", "oauth"]).default("token"),
  revision: z.string().min(1).max(40).default("2025-11-25"),
});
