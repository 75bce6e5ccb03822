import { env } from "@switchboard/runtime/env";
import { getAuth } from "~/server/auth";
import { asOAuthRefusal, isOAuthClientPath } from "~/server/auth/mcp-authorization";
import { isSsoAccountCreation, ssoBrowserAnswer } from "~/server/auth/sso";
import { findUnsafeText, unsafeTextMessage } from "~/server/http/unsafe-text";

export const dynamic = "force-dynamic";

/**
 * The query and the body of an auth request, checked as tRPC inputs are: a NUL character or text that is not
 * valid Unicode answers 400 here instead of reaching the database through Better Auth (where it was a 500).
 * The body is read once and handed on unchanged. The gateway caps its size before it gets here.
 */
async function screened(req: Request): Promise<Request | Response> {
  const url = new URL(req.url);
  const query = findUnsafeText(Object.fromEntries(url.searchParams));
  if (query) return refuse(unsafeTextMessage(query));
  if (req.method === "GET" || req.method === "HEAD") return req;

  const body = await req.text();
  const type = (req.headers.get("content-type") ?? "").toLowerCase();
  let decoded: unknown = body;
  if (type.includes("application/x-www-form-urlencoded")) decoded = Object.fromEntries(new URLSearchParams(body));
  else if (type.includes("json")) {
    try {
      decoded = JSON.parse(body);
    } catch {
      // Better Auth answers malformed JSON itself; the raw text is still checked below.
    }
  }
  const found = findUnsafeText(decoded) ?? findUnsafeText(body);
  if (found) return refuse(unsafeTextMessage(found));
  return new Request(req, { body });
}

/** Better Auth's error shape (`{ code, message }`), so the sign-in and sign-up forms show the message. */
function refuse(message: string): Response {
  return Response.json({ code: "INVALID_INPUT", message }, { status: 400 });
}

/** The path after /api/auth, as Better Auth routes it. */
function authPath(req: Request): string {
  const path = new URL(req.url).pathname;
  const at = path.indexOf("/api/auth");
  return (at === -1 ? path : path.slice(at + "/api/auth".length)).replace(/\/+$/, "") || "/";
}

/**
 * Each kind of auth endpoint refuses in its own shape, whoever refused (the screen above, Better Auth, a plugin):
 * an OAuth client gets OAuth's error JSON, a browser back from an identity provider lands on the sign-in page with
 * the error, the console's forms get `{ code, message }`.
 */
async function handle(req: Request): Promise<Response> {
  const path = authPath(req);
  const checked = await screened(req);
  const response = checked instanceof Response ? checked : await getAuth().handler(checked);
  if (isOAuthClientPath(path)) return asOAuthRefusal(response);
  if (isSsoAccountCreation(path)) return ssoBrowserAnswer(response, env().APP_URL);
  return response;
}

export { handle as GET, handle as POST };
