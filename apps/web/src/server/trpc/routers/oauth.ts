import { z } from "zod";
import { callbackUrl, startOAuth } from "../../oauth/flow.service";
import { createTRPCRouter, teamProcedure } from "../init";

/**
 * OAuth to upstream MCP servers, per member. `start` answers the authorization server URL for the caller's own
 * instance; the browser goes there and comes back to GET /api/oauth/callback, which finishes the flow.
 */
export const oauthRouter = createTRPCRouter({
  start: teamProcedure
    .input(z.object({ instanceId: z.string().min(1).max(64) }))
    .output(z.object({ authorizationUrl: z.url(), expiresAt: z.date() }))
    .mutation(({ ctx, input }) => startOAuth({ db: ctx.db, actor: ctx.actor, instanceId: input.instanceId })),

  /** The redirect URI an admin registers at the provider for a pre-registered client (APP_URL + the callback). */
  redirectUri: teamProcedure.output(z.object({ redirectUri: z.url() })).query(() => ({ redirectUri: callbackUrl() })),
});
