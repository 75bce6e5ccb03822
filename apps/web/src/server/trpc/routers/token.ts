import { z } from "zod";
import * as tokens from "../../services/access-token.service";
import { createTRPCRouter, teamProcedure } from "../init";
import { ok } from "./shared.schema";

const tokenView = z.object({
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

/** A member's own tokens for one team; nobody, admins included, sees another member's tokens. */
export const tokenRouter = createTRPCRouter({
  list: teamProcedure.output(z.array(tokenView)).query(({ ctx }) => tokens.list({ db: ctx.db, actor: ctx.actor })),

  create: teamProcedure
    .input(
      z.object({
        name: z.string().trim().min(1, "Name the token after the client that will use it.").max(80),
        mode: z.enum(["all", "router"]).default("all"),
        expiresInDays: z.number().int().min(1).max(365).nullable().default(null),
        /** Limit the token to one toolset (the member's own or the team's): it then serves only that selection. */
        toolsetId: z.string().min(1).max(64).nullable().default(null),
      }),
    )
    .output(
      z.object({
        id: z.string(),
        name: z.string(),
        prefix: z.string(),
        mode: z.enum(["all", "router"]),
        expiresAt: z.date().nullable(),
        toolsetId: z.string().nullable(),
        token: z.string(),
      }),
    )
    .mutation(({ ctx, input }) =>
      tokens.create({
        db: ctx.db,
        actor: ctx.actor,
        name: input.name,
        mode: input.mode,
        expiresInDays: input.expiresInDays,
        toolsetId: input.toolsetId,
      }),
    ),

  revoke: teamProcedure
    .input(z.object({ tokenId: z.string().min(1) }))
    .output(ok)
    .mutation(async ({ ctx, input }) => {
      await tokens.revoke({ db: ctx.db, actor: ctx.actor, tokenId: input.tokenId });
      return { ok: true as const };
    }),

  setMode: teamProcedure
    .input(z.object({ tokenId: z.string().min(1), mode: z.enum(["all", "router"]) }))
    .output(ok)
    .mutation(async ({ ctx, input }) => {
      await tokens.setMode({ db: ctx.db, actor: ctx.actor, tokenId: input.tokenId, mode: input.mode });
      return { ok: true as const };
    }),
});
