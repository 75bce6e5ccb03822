/**
 * What the SSO plugin (sso.ts) hands back, read for Switchboard's rules around it: the groups an identity provider
 * sent, where a callback sent the browser and with which error, an API error's status, and why a SAML response's
 * validity window refused it.
 */

function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return value ? [value] : [];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string" && v.length > 0);
  return [];
}

/** The groups claim (OIDC `groups`) or attribute (SAML `groups` or `memberOf`), bounded. */
export function groupsOf(userInfo: Record<string, unknown>): string[] {
  return [...new Set([...stringsOf(userInfo.groups), ...stringsOf(userInfo.memberOf)])]
    .map((g) => g.slice(0, 256))
    .slice(0, 500);
}

/** Where a callback sent the browser, and the error it carries (null: a success). */
export function redirectOf(returned: unknown): {
  location: string | null;
  error: string | null;
  description: string | null;
} {
  const r = returned as { headers?: Headers | Record<string, string>; statusCode?: number } | null;
  const headers = r?.headers;
  const location =
    headers instanceof Headers
      ? headers.get("location")
      : headers && typeof headers === "object"
        ? ((headers as Record<string, string>).location ?? (headers as Record<string, string>).Location ?? null)
        : null;
  if (!location) return { location: null, error: null, description: null };
  try {
    const url = new URL(location, "http://x");
    return {
      location,
      error: url.searchParams.get("error"),
      description: url.searchParams.get("error_description"),
    };
  } catch {
    return { location, error: null, description: null };
  }
}

export function apiErrorOf(returned: unknown): { status: number; message: string; code: string } | null {
  const r = returned as {
    statusCode?: unknown;
    status?: unknown;
    body?: { code?: unknown; message?: unknown };
    message?: unknown;
  } | null;
  if (!r || typeof r !== "object" || typeof r.statusCode !== "number" || r.statusCode < 400) return null;
  return {
    status: r.statusCode,
    code: String(r.body?.code ?? r.status ?? r.statusCode),
    message: String(r.body?.message ?? r.message ?? ""),
  };
}

/**
 * Why a SAML response was refused, when the plugin (samlify) only says "Invalid SAML response": its validity window
 * against this clock. For the person's sentence only; the plugin has already refused the response.
 */
export function samlWindowProblem(samlResponse: unknown, now = Date.now(), skewMs = 5 * 60_000): string | null {
  if (typeof samlResponse !== "string" || samlResponse.length > 400_000) return null;
  let xml: string;
  try {
    xml = Buffer.from(samlResponse, "base64").toString("utf8");
  } catch {
    return null;
  }
  const conditions = /<(?:\w+:)?Conditions\b([^>]*)>/.exec(xml)?.[1] ?? "";
  const notBefore = /\bNotBefore="([^"]+)"/.exec(conditions)?.[1];
  const notOnOrAfter = /\bNotOnOrAfter="([^"]+)"/.exec(conditions)?.[1];
  if (notOnOrAfter && Date.parse(notOnOrAfter) + skewMs < now)
    return `SAML assertion has expired (NotOnOrAfter ${notOnOrAfter.slice(0, 40)}, clock skew allowed ${skewMs / 1000} s)`;
  if (notBefore && Date.parse(notBefore) - skewMs > now)
    return `SAML assertion is not yet valid (NotBefore ${notBefore.slice(0, 40)}, clock skew allowed ${skewMs / 1000} s)`;
  return null;
}
