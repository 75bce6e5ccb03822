import { createCallerFactory, createTRPCRouter, publicProcedure } from "./init";
import { invitationRouter } from "./routers/invitation";
import { teamRouter } from "./routers/team";

export const appRouter = createTRPCRouter({
  me: publicProcedure.query(({ ctx }) => (ctx.user ? { id: ctx.user.id, name: ctx.user.name, email: ctx.user.email } : null)),
  team: teamRouter,
  invitation: invitationRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
