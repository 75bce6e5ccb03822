import type { Db } from "./client";

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
          return query(args);
        },
      },
    },
  }) as unknown as Db;
}
