import { getDb } from "@switchboard/db/client";
import { env } from "@switchboard/runtime/env";
import { getSession } from "~/server/auth";
import { findUnsafeText } from "~/server/http/unsafe-text";
import { completeOAuth } from "~/server/oauth/flow.service";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * The authorization server sends the member's browser back here. Whatever happens, the browser is redirected to
 * the console with a readable result (`oauth=connected` or `oauth=error&message=...`); codes, tokens and the
 * verifier never appear in the response.
 */
export async function GET(req: Request): Promise<Response> {
  const url = new URL(req.url);
  const session = await getSession(req.headers);
  const appUrl = env().APP_URL;
  if (!session) {
    return redirect(
      new URL(
        `/sign-in?${new URLSearchParams({ message: "Sign in, then connect the server again from the console." })}`,
        appUrl,
      ),
    );
  }
  // A NUL or broken text in the query would fail the state lookup in the database with a 500.
  if (findUnsafeText(Object.fromEntries(url.searchParams))) {
    const target = new URL("/teams", appUrl);
    target.searchParams.set("oauth", "error");
    target.searchParams.set(
      "message",
      "The authorization server sent back a malformed answer. Connect the server again from the console.",
    );
    return redirect(target);
  }
  const outcome = await completeOAuth({
    db: getDb(),
    userId: session.user.id,
    state: url.searchParams.get("state"),
    code: url.searchParams.get("code"),
    iss: url.searchParams.get("iss"),
    error: url.searchParams.get("error"),
    errorDescription: url.searchParams.get("error_description"),
  });
  const page = outcome.teamSlug ? `/t/${encodeURIComponent(outcome.teamSlug)}/my-servers` : "/teams";
  const target = new URL(page, appUrl);
  if (outcome.instanceId) target.searchParams.set("instance", outcome.instanceId);
  if (outcome.ok) {
    target.searchParams.set("oauth", "connected");
  } else {
    target.searchParams.set("oauth", "error");
    target.searchParams.set("message", outcome.message);
  }
  return redirect(target);
}

function redirect(to: URL): Response {
  // 303: the browser follows with a GET and drops this URL (code and state) from the history entry it replaces.
  return new Response(null, {
    status: 303,
    headers: { location: to.href, "cache-control": "no-store", "referrer-policy": "no-referrer" },
  });
}
