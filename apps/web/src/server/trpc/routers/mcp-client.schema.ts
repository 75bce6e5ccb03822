import { z } from "zod";

/** The mcp-client router's inputs and answers: consent to an MCP client, its grants, the team's policy. */

export const clientId = z.string().min(1).max(2048);
export const mode = z.enum(["all", "router"]);

export const signedInClientView = z.object({
  id: z.string(),
  clientId: z.string(),
  name: z.string(),
  logoUri: z.string().nullable(),
  clientUri: z.string().nullable(),
  registration: z.enum(["metadata-document", "dynamic"]),
  mode,
  /** The toolset the grant is limited to, if any. */
  toolset: z.object({ id: z.string(), name: z.string() }).nullable(),
  lastUsedAt: z.date().nullable(),
  createdAt: z.date(),
});

export const consentInput = z.object({ clientId });
export const consent = z.object({
  client: z.object({
    clientId: z.string(),
    name: z.string(),
    logoUri: z.string().nullable(),
    clientUri: z.string().nullable(),
    registration: z.enum(["metadata-document", "dynamic"]),
    redirectUris: z.array(z.string()),
  }),
  teams: z.array(z.object({ id: z.string(), name: z.string(), slug: z.string(), allowed: z.boolean() })),
  earlier: z.object({ teamId: z.string(), mode, toolsetId: z.string().nullable() }).nullable(),
});
export const approveInput = z.object({
  clientId,
  mode,
  /** Limit the grant to one toolset (the member's own or the team's): the client then sees only that selection. */
  toolsetId: z.string().min(1).max(64).nullable().default(null),
});
export const approved = z.object({ grantId: z.string() });
export const signedInClients = z.array(signedInClientView);
export const revokeInput = z.object({ grantId: z.string().min(1).max(64) });
export const policy = z.object({ allowed: z.boolean() });
export const signedOut = z.object({ signedOut: z.number() });
