import { z } from "zod";

/** The token router's inputs and answers: a member's own access tokens. */

export const tokenView = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  mode: z.enum(["all", "router"]),
  lastUsedAt: z.date().nullable(),
  createdAt: z.date(),
  revokedAt: z.date().nullable(),
  expiresAt: z.date().nullable(),
  /** The toolset the token is limited to, if any. */
  toolset: z.object({ id: z.string(), name: z.string() }).nullable(),
});
export const tokenList = z.array(tokenView);

export const createInput = z.object({
  name: z.string().trim().min(1, "Name the token after the client that will use it.").max(80),
  mode: z.enum(["all", "router"]).default("all"),
  expiresInDays: z.number().int().min(1).max(365).nullable().default(null),
  /** Limit the token to one toolset (the member's own or the team's): it then serves only that selection. */
  toolsetId: z.string().min(1).max(64).nullable().default(null),
});
/** The new token: the only answer that carries it in clear. */
export const createdToken = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  mode: z.enum(["all", "router"]),
  expiresAt: z.date().nullable(),
  toolsetId: z.string().nullable(),
  token: z.string(),
});
export const revokeInput = z.object({ tokenId: z.string().min(1) });
export const setModeInput = z.object({ tokenId: z.string().min(1), mode: z.enum(["all", "router"]) });
