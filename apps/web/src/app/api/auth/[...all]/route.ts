import { getAuth } from "~/server/auth";
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

async function handle(req: Request): Promise<Response> {
  const checked = await screened(req);
  return checked instanceof Response ? checked : getAuth().handler(checked);
}

export { handle as GET, handle as POST };
