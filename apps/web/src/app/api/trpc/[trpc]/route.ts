import { TRPCError } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { jsonTooDeep } from "@switchboard/core/proxy";
import { appRouter } from "~/server/trpc/root";
import { createTRPCContext } from "~/server/trpc/init";
import { unsafeTextMessage } from "~/server/http/unsafe-text";

export const dynamic = "force-dynamic";

/**
 * Whether any part of a tRPC request nests too deeply: the whole body (every batch entry, its input and its
 * superjson `meta`) or a query's `input`, checked as text before tRPC parses it. superjson walks `meta`
 * recursively, so a few thousand levels of it overflowed the stack before any procedure's own check ran. The
 * body is read once and handed on unchanged.
 */
async function tooDeep(req: Request): Promise<{ req: Request; deep: boolean }> {
  const input = new URL(req.url).searchParams.get("input");
  if (input !== null && jsonTooDeep(input)) return { req, deep: true };
  if (req.method !== "POST") return { req, deep: false };
  const body = await req.text();
  return { req: new Request(req, { body }), deep: jsonTooDeep(body) };
}

async function handler(req: Request) {
  const checked = await tooDeep(req);
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req: checked.req,
    router: appRouter,
    // Refused here, before tRPC reads the input: every call of the request (each batch entry) answers BAD_REQUEST.
    createContext: () => {
      if (checked.deep)
        throw new TRPCError({ code: "BAD_REQUEST", message: unsafeTextMessage({ path: "", reason: "too_deep" }) });
      return createTRPCContext({ headers: checked.req.headers, viaHttp: true });
    },
  });
}

export { handler as GET, handler as POST };
