import { NextResponse, type NextRequest } from "next/server";
import { contentSecurityPolicy } from "~/server/http/security-headers";
import { REQUESTED_PATH_HEADER } from "~/server/requested-path";

/**
 * A Content Security Policy with a fresh nonce for every page. Next reads the nonce from the request's policy
 * header and puts it on its own scripts; pages are rendered per request (the root layout awaits `connection()`),
 * so every page gets one. API routes answer JSON and keep only the fixed headers of `next.config.ts`.
 */
export function proxy(request: NextRequest) {
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
  const policy = contentSecurityPolicy(nonce, process.env.NODE_ENV === "development");
  const headers = new Headers(request.headers);
  headers.set("content-security-policy", policy);
  // The page asked for, so that a sign-in a page requires comes back to it (page-auth.ts), not to the team's home.
  headers.set(REQUESTED_PATH_HEADER, request.nextUrl.pathname + request.nextUrl.search);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", policy);
  return response;
}

export const config = {
  matcher: [{ source: "/((?!api/|_next/static|_next/image|favicon.ico).*)" }],
};
