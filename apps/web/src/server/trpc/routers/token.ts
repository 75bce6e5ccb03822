import * as tokens from "../../services/access-token.service";
import { createTRPCRouter, teamProcedure } from "../init";
import { ok } from "./shared.schema";
import * as schema from "./token.schema";

/** A member's own tokens for one team; nobody, admins included, sees another member's tokens. */
export const tokenRouter = createTRPCRouter({
  list: teamProcedure.output(schema.tokenList).query(({ ctx }) => tokens.list({ db: ctx.db, actor: ctx.actor })),

  create: teamProcedure
    .input(schema.createInput)
    .output(schema.createdToken)
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
    .input(schema.revokeInput)
    .output(ok)
    .mutation(async ({ ctx, input }) => {
      await tokens.revoke({ db: ctx.db, actor: ctx.actor, tokenId: input.tokenId });
      return { ok: true as const };
    }),

  setMode: teamProcedure
    .input(schema.setModeInput)
    .output(ok)
    .mutation(async ({ ctx, input }) => {
      await tokens.setMode({ db: ctx.db, actor: ctx.actor, tokenId: input.tokenId, mode: input.mode });
      return { ok: true as const };
    }),
});
