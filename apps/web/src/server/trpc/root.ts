import { z } from "zod";
import { createCallerFactory, createTRPCRouter, publicProcedure } from "./init";
import { meOutput } from "./root.schema";
import { activityRouter } from "./routers/activity";
import { approvalsRouter } from "./routers/approvals";
import { auditRouter } from "./routers/audit";
import { catalogueRouter } from "./routers/catalogue";
import { deploymentRouter } from "./routers/deployment";
import { enterpriseIdpRouter } from "./routers/enterprise-idp";
import { governanceRouter } from "./routers/governance";
import { identityRouter } from "./routers/identity";
import { installationRouter } from "./routers/installation";
import { instanceRouter } from "./routers/instance";
import { invitationRouter } from "./routers/invitation";
import { mcpClientRouter } from "./routers/mcp-client";
import { oauthRouter } from "./routers/oauth";
import { registryRouter } from "./routers/registry";
import { ssoRouter } from "./routers/sso";
import { opsRouter } from "./routers/ops";
import { policiesRouter } from "./routers/policies";
import { teamRouter } from "./routers/team";
import { tokenRouter } from "./routers/token";

export const appRouter = createTRPCRouter({
  me: publicProcedure
    .input(z.void())
    .output(meOutput)
    .query(({ ctx }) =>
      ctx.user
        ? { id: ctx.user.id, name: ctx.user.name, email: ctx.user.email, emailVerified: ctx.user.emailVerified }
        : null,
    ),
  team: teamRouter,
  invitation: invitationRouter,
  catalogue: catalogueRouter,
  token: tokenRouter,
  installation: installationRouter,
  instance: instanceRouter,
  ops: opsRouter,
  oauth: oauthRouter,
  deployment: deploymentRouter,
  registry: registryRouter,
  governance: governanceRouter,
  approvals: approvalsRouter,
  mcpClient: mcpClientRouter,
  activity: activityRouter,
  audit: auditRouter,
  sso: ssoRouter,
  enterpriseIdp: enterpriseIdpRouter,
  identity: identityRouter,
  policies: policiesRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
