import type { Db } from "./client";
import { openOidcConfig, sealOidcConfig } from "./sso-config";

/**
 * The database client Better Auth's adapter uses. Its OAuth provider writes `null` to optional list columns
 * (an `oauthResource` without `allowedScopes` means "every scope"); Prisma refuses `null` for a list field
 * while the column itself is nullable. Leaving such a field out of the write stores NULL, which reads back as
 * null: the provider's meaning is kept.
 */
const LIST_FIELDS = new Set([
  "scopes",
  "clientCredentialsScopes",
  "contacts",
  "redirectUris",
  "postLogoutRedirectUris",
  "grantTypes",
  "responseTypes",
  "allowedScopes",
  "resources",
  "requestedUserInfoClaims",
]);
const MODELS = new Set(["OauthClient", "OauthResource", "OauthRefreshToken", "OauthAccessToken", "OauthConsent"]);

function withoutNullLists(data: unknown): unknown {
  if (Array.isArray(data)) return data.map(withoutNullLists);
  if (!data || typeof data !== "object") return data;
  return Object.fromEntries(
    Object.entries(data as Record<string, unknown>).filter(([key, value]) => !(value === null && LIST_FIELDS.has(key))),
  );
}

/** SSO providers: the OIDC client secret is sealed in the row and opened for Better Auth only (sso-config.ts). */
function sealedSsoWrite(data: unknown): unknown {
  if (!data || typeof data !== "object" || !("oidcConfig" in data)) return data;
  const d = data as { oidcConfig?: string | null };
  return { ...d, oidcConfig: sealOidcConfig(d.oidcConfig) };
}

function openedSsoRead(result: unknown): unknown {
  if (Array.isArray(result)) return result.map(openedSsoRead);
  if (!result || typeof result !== "object" || !("oidcConfig" in result)) return result;
  const r = result as { oidcConfig?: string | null };
  return { ...r, oidcConfig: openOidcConfig(r.oidcConfig) };
}

export function authDbClient(db: Db): Db {
  return db.$extends({
    query: {
      $allModels: {
        async $allOperations({ model, args, query }) {
          if (MODELS.has(model) && args && typeof args === "object") {
            const a = args as Record<string, unknown>;
            if ("data" in a) a.data = withoutNullLists(a.data);
            if ("create" in a) a.create = withoutNullLists(a.create);
            if ("update" in a) a.update = withoutNullLists(a.update);
          }
          if (model === "SsoProvider" && args && typeof args === "object") {
            const a = args as Record<string, unknown>;
            if ("data" in a) a.data = sealedSsoWrite(a.data);
            return openedSsoRead(await query(args));
          }
          return query(args);
        },
      },
    },
  }) as unknown as Db;
}
