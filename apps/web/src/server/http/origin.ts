/**
 * Whether a browser request comes from the console's own pages. Browsers send `Origin` on every POST (so on
 * every tRPC mutation) and cannot forge it or `Host`; a page on another site therefore shows its own origin here.
 * The console's origin is APP_URL's, or the one the request was addressed to (the gateway keeps Host and sets
 * x-forwarded-proto), so that a console reached under a second name (127.0.0.1 beside localhost) keeps working.
 */
export type OriginVerdict = "same" | "foreign" | "missing";

function originOf(url: string): string | null {
  try {
    const origin = new URL(url).origin;
    return origin === "null" ? null : origin;
  } catch {
    return null;
  }
}

export function checkOrigin(headers: Headers, appUrl: string): OriginVerdict {
  const origin = headers.get("origin");
  if (origin === null || origin === "") return "missing";
  const allowed = new Set<string>();
  const app = originOf(appUrl);
  if (app) allowed.add(app);
  const host = headers.get("host");
  if (host) {
    const proto = (headers.get("x-forwarded-proto") ?? "").split(",")[0]!.trim() || "http";
    if (proto === "http" || proto === "https") {
      const own = originOf(`${proto}://${host}`);
      if (own) allowed.add(own);
    }
  }
  return allowed.has(origin) ? "same" : "foreign";
}
