import { GROUP_NAME_MAX, TEAM_ROLES } from "@switchboard/core/accounts";
import { z } from "zod";

/** `scim`, or an SSO provider's id (letters, digits, dashes: what Better Auth's SSO plugin accepts as providerId). */
export const providerIdSchema = z
  .string()
  .trim()
  .min(1, "Name the identity provider (scim for SCIM groups).")
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "A provider id has letters, digits, dots, dashes and underscores only.");

export const addGroupMappingInput = z.object({
  providerId: providerIdSchema,
  groupName: z.string().trim().min(1, "Enter the group's name as the identity provider sends it.").max(GROUP_NAME_MAX),
  teamId: z.string().min(1).max(64),
  role: z.enum(TEAM_ROLES),
});

export const groupMappingsOutput = z.array(
  z.object({
    id: z.string(),
    providerId: z.string(),
    groupName: z.string(),
    role: z.string(),
    team: z.object({ id: z.string(), name: z.string(), slug: z.string() }),
    createdAt: z.date(),
  }),
);

export const scimTokenStatusOutput = z
  .object({ prefix: z.string(), createdAt: z.date(), lastUsedAt: z.date().nullable() })
  .nullable();

export const createdScimTokenOutput = z.object({
  token: z.string(),
  prefix: z.string(),
  createdAt: z.date(),
  lastUsedAt: z.date().nullable(),
});

export const removeGroupMappingInput = z.object({
  teamId: z.string().min(1).max(64),
  mappingId: z.string().min(1).max(64),
});
export const mappingId = z.object({ id: z.string() });
export const scimTokenRevoked = z.object({ revoked: z.literal(true) });
