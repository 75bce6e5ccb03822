import "server-only";
import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import { z } from "zod";
import { getDb } from "@switchboard/db/client";
import { isDeploymentOwner } from "@switchboard/db/queries/deployment";
import { isTeamAdminRole } from "@switchboard/core/accounts";
import { findMembership } from "@switchboard/db/queries/team";
import { getSession } from "../auth";
import { env } from "@switchboard/runtime/env";
import { AppError, toTRPCError } from "../errors";
import type { Actor, UserActor } from "../services/actor";
import { checkOrigin } from "../http/origin";
import { findUnsafeText, unsafeTextMessage } from "../http/unsafe-text";
import { logger } from "@switchboard/runtime/logger";
import { auditMutation } from "../audit/middleware";

/**
 * `viaHttp`: the call came over /api/trpc from a browser or another client, so its Origin is checked. Callers in
 * this process (server components' prefetch, tests) are our own code and pass none.
 */
export async function createTRPCContext({ headers, viaHttp = false }: { headers: Headers; viaHttp?: boolean }) {
  const session = await getSession(headers);
  return { headers, viaHttp, db: getDb(), session, user: session?.user ?? null };
}

type TRPCContext = Awaited<ReturnType<typeof createTRPCContext>>;

/** Input validation failures (zod through Standard Schema) as `{ field: [messages] }` for forms. */
function fieldErrors(cause: unknown): Record<string, string[]> | null {
  const issues = (
    cause as { issues?: Array<{ path?: ReadonlyArray<PropertyKey | { key: PropertyKey }>; message: string }> }
  )?.issues;
  if (!Array.isArray(issues)) return null;
  const out: Record<string, string[]> = {};
  for (const issue of issues) {
    const key = (issue.path ?? []).map((p) => String(typeof p === "object" ? p.key : p)).join(".") || "_";
    (out[key] ??= []).push(issue.message);
  }
  return out;
}

const INTERNAL_MESSAGE =
  "Something went wrong on our side. Try again in a moment; if it keeps failing, tell your admin.";

const t = initTRPC.context<TRPCContext>().create({
  transformer: superjson,
  // Live console updates: keep idle SSE connections open through proxies, and let the client notice a dead one.
  sse: { ping: { enabled: true, intervalMs: 15_000 }, client: { reconnectAfterInactivityMs: 40_000 } },
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    // An error we did not raise on purpose (a database error, a bug) keeps its detail in the logs (appErrors
    // below): the client gets one sentence, never the driver's text.
    const unexpected = error.code === "INTERNAL_SERVER_ERROR" && !(cause instanceof AppError);
    return {
      ...shape,
      message: unexpected ? INTERNAL_MESSAGE : shape.message,
      data: {
        ...shape.data,
        appCode: cause instanceof AppError ? cause.code : null,
        // Field errors for forms; never the stack in production.
        fieldErrors: fieldErrors(cause),
        stack: env().NODE_ENV === "production" || unexpected ? undefined : shape.data.stack,
      },
    };
  },
});

/** Service functions throw AppError; turn it into the mapped tRPC error once, keeping the cause. */
const appErrors = t.middleware(async ({ next, path }) => {
  const result = await next();
  if (!result.ok) {
    const cause = result.error.cause;
    if (cause instanceof AppError) throw toTRPCError(cause);
    if (result.error.code === "INTERNAL_SERVER_ERROR")
      logger.error({ err: result.error, path }, "tRPC procedure failed");
  }
  return result;
});

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;

/**
 * Every procedure's raw input, before its own zod schema: a NUL character or text that is not valid Unicode
 * answers BAD_REQUEST here, so that no procedure passes one to the database (which would fail with a 500).
 */
const safeInput = t.middleware(async ({ getRawInput, next }) => {
  const found = findUnsafeText(await getRawInput());
  if (found) throw new TRPCError({ code: "BAD_REQUEST", message: unsafeTextMessage(found) });
  return next();
});

/**
 * Cross-site request forgery: a mutation over HTTP must come from the console's own pages (a browser always
 * sends Origin on a POST; a foreign or missing one answers FORBIDDEN). Queries and the live subscription are
 * GETs that change nothing and whose answers another site cannot read, and same-origin GETs (EventSource
 * included) carry no Origin, so for them only a foreign Origin is refused.
 */
const sameOrigin = t.middleware(({ ctx, type, next }) => {
  if (!ctx.viaHttp) return next();
  const verdict = checkOrigin(ctx.headers, env().APP_URL);
  if (verdict === "foreign" || (verdict === "missing" && type === "mutation")) {
    throw new TRPCError({
      code: "FORBIDDEN",
      message: "This request did not come from the Switchboard console; reload the page and try again.",
    });
  }
  return next();
});

/**
 * The audit trail: every mutation that succeeds is recorded (who, from where, what, before/after; see
 * ../audit/middleware.ts), whichever router it is in.
 */
const audited = t.middleware(async ({ ctx, type, path, getRawInput, next }) => {
  if (type !== "mutation") return next();
  return auditMutation({ db: ctx.db, path, headers: ctx.headers, user: ctx.user, rawInput: await getRawInput(), next });
});

/** The base of every procedure: each one below builds on it, so the checks above cover all of them. */
export const publicProcedure = t.procedure.use(appErrors).use(sameOrigin).use(safeInput).use(audited);

export const protectedProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.user || !ctx.session) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in to continue." });
  // The caller, as every service that acts for someone takes it (CONTRIBUTING, "one service call shape").
  const actor: UserActor = { userId: ctx.user.id };
  return next({ ctx: { ...ctx, user: ctx.user, session: ctx.session, actor } });
});

/**
 * Any member of the team named by `input.teamId`. A team the user does not belong to answers NOT_FOUND, so that
 * nobody can probe which teams exist.
 */
export const teamInput = z.object({ teamId: z.string().min(1).max(64) });

export const teamProcedure = protectedProcedure.input(teamInput).use(async ({ ctx, input, next }) => {
  const membership = await findMembership(ctx.db, { teamId: input.teamId, userId: ctx.user.id });
  if (!membership) throw toTRPCError(new AppError("NOT_FOUND", "Team not found."));
  const actor: Actor = { teamId: membership.team.id, userId: ctx.user.id, role: membership.role };
  return next({ ctx: { ...ctx, team: membership.team, membership, actor } });
});

/** Owners and admins of the team named by `input.teamId`. */
export const teamAdminProcedure = teamProcedure.use(({ ctx, next }) => {
  if (!isTeamAdminRole(ctx.membership.role)) {
    throw toTRPCError(new AppError("FORBIDDEN", "Only team owners and admins can do this."));
  }
  return next();
});

/** Deployment owners only. Anyone else gets NOT_FOUND: the deployment's settings are not theirs to know about. */
export const deploymentOwnerProcedure = protectedProcedure.use(async ({ ctx, next }) => {
  if (!(await isDeploymentOwner(ctx.db, ctx.user.id))) {
    throw toTRPCError(new AppError("NOT_FOUND", "Only deployment owners can see the deployment settings."));
  }
  return next();
});
