/**
 * The console's security headers, in one place: `next.config.ts` sends the fixed ones on every response and
 * `src/proxy.ts` the Content Security Policy, which carries a fresh nonce per page.
 */

/** On every console response, pages and API alike. */
export const SECURITY_HEADERS: ReadonlyArray<{ key: string; value: string }> = [
  // Nobody frames the console (clickjacking); frame-ancestors in the CSP says the same to newer browsers.
  { key: "X-Frame-Options", value: "DENY" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  // Links out of the console (an OAuth provider, an upstream's docs) learn the origin, never a team's path.
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
];

/**
 * The policy for a page rendered with `nonce`. Scripts: only those Next marks with the nonce, and what they load
 * ('strict-dynamic'); no inline script of anyone else. Styles allow inline because React's `style` attributes
 * cannot carry a nonce; styles cannot run code. Development adds what `next dev` needs (eval for React's
 * debugging, the reload WebSocket).
 */
export function contentSecurityPolicy(nonce: string, dev: boolean): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src 'self'${dev ? " ws: wss:" : ""}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}
