import { allowedCommandSchema, LAUNCHERS, SIGNUP_MODES } from "@switchboard/core/deployment";
import { z } from "zod";

export const signupModeSchema = z.enum(SIGNUP_MODES);

/** An allow-list entry as stored and as sent back (no refinements on output: stored entries were checked). */
const allowedCommandOutput = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("executable"), name: z.string() }),
  z.object({ kind: z.literal("package"), launcher: z.enum(LAUNCHERS), name: z.string() }),
]);

export const deploymentSettingsOutput = z.object({
  signupMode: signupModeSchema,
  signupModeFixedByOperator: z.boolean(),
  allowList: z.array(z.object({ entry: allowedCommandOutput, label: z.string() })),
  /** Host loopback ports sandboxes may be given: the owners' list, the operator's, and those never given. */
  sandboxLoopback: z.object({
    ports: z.array(z.number()),
    operatorPorts: z.array(z.number()),
    reserved: z.array(z.object({ port: z.number(), service: z.string() })),
  }),
  operator: z.object({
    signupMode: z.enum(["invite-only", "open"]).nullable(),
    appUrl: z.string(),
    authRateLimit: z.enum(["on", "off"]),
    bridgeSecretSet: z.boolean(),
    sandbox: z.object({ state: z.string(), detail: z.string() }).nullable(),
  }),
});

export const deploymentTeamsOutput = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      slug: z.string(),
      stdioAllowed: z.boolean(),
      memberCount: z.number(),
      hasOwner: z.boolean(),
      stdioInstallationCount: z.number(),
    }),
  ),
  nextCursor: z.string().nullable(),
});

export const allowedCommandInput = allowedCommandSchema;

export const deploymentOwnersOutput = z.array(z.object({ id: z.string(), name: z.string(), email: z.string() }));

/** One host loopback port, added to or removed from the deployment owners' list. */
export const sandboxLoopbackPortInput = z.object({ port: z.number().int().min(1).max(65_535) });

export const deploymentAccess = z.object({ deploymentOwner: z.boolean() });
export const signupModeInput = z.object({ mode: signupModeSchema });
export const teamsInput = z.object({
  cursor: z.string().nullish(),
  limit: z.number().int().min(1).max(100).default(50),
});
export const setTeamStdioInput = z.object({ teamId: z.string().min(1).max(64), allowed: z.boolean() });
export const teamStdio = z.object({ teamId: z.string(), stdioAllowed: z.boolean() });
export const addOwnerInput = z.object({
  email: z.email("Enter a valid email address.").transform((e) => e.toLowerCase()),
});
export const removeOwnerInput = z.object({ userId: z.string().min(1).max(64) });
export const allowedCommandEntryInput = z.object({ entry: allowedCommandInput });
