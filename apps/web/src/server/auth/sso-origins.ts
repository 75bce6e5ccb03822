import { checkEgressUrl } from "@switchboard/core/egress";
import type { Db } from "@switchboard/db/client";
import { ssoProviderEndpoints } from "@switchboard/db/queries/sso";

/** The SSO providers' private-network origins the plugin may trust (sso.ts), cached for a few seconds. */
let originsCache: { at: number; origins: string[] } | null = null;
const ORIGINS_TTL_MS = 5_000;

/** Forget the cached provider origins (after a provider change in this process). */
export function forgetSsoOrigins() {
  originsCache = null;
}

/**
 * The plugin refuses provider endpoints on private networks unless they are trusted origins. An owner's provider
 * on the private network (an internal Keycloak, the tests' IdP) is trusted when the deployment's egress rules
 * (EGRESS_ALLOW_PRIVATE, EGRESS_ALLOW) let Switchboard reach it, the rule every other configured URL follows.
 * Public endpoints need no trust and get none.
 */
export async function privateProviderOrigins(
  db: () => Db,
  allowedByEgress: (url: string) => boolean,
): Promise<string[]> {
  if (originsCache && Date.now() - originsCache.at < ORIGINS_TTL_MS) return originsCache.origins;
  const origins = new Set<string>();
  for (const url of await ssoProviderEndpoints(db())) {
    if (!URL.canParse(url)) continue;
    const isPublic = checkEgressUrl({ allowPrivate: false, allow: [] }, url).allowed;
    if (!isPublic && allowedByEgress(url)) origins.add(new URL(url).origin);
  }
  originsCache = { at: Date.now(), origins: [...origins] };
  return originsCache.origins;
}
