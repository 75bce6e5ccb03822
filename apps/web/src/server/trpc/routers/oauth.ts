import { callbackUrl, startOAuth } from "../../oauth/flow.service";
import { createTRPCRouter, teamProcedure } from "../init";
import * as schema from "./oauth.schema";

/**
 * OAuth to upstream MCP servers, per member. `start` answers the authorization server URL for the caller's own
 * instance; the browser goes there and comes back to GET /api/oauth/callback, which finishes the flow.
 */
export const oauthRouter = createTRPCRouter({
  start: teamProcedure
    .input(schema.startInput)
    .output(schema.started)
    .mutation(({ ctx, input }) => startOAuth({ db: ctx.db, actor: ctx.actor, instanceId: input.instanceId })),

  /** The redirect URI an admin registers at the provider for a pre-registered client (APP_URL + the callback). */
  redirectUri: teamProcedure.output(schema.redirectUri).query(() => ({ redirectUri: callbackUrl() })),
});
