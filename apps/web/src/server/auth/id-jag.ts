import { extendOAuthProvider, type OAuthProviderApi } from "@better-auth/oauth-provider";
import type { BetterAuthPlugin } from "better-auth";
import { APIError } from "better-auth/api";
import { decodeJwt, decodeProtectedHeader, jwtVerify, type JWTPayload } from "jose";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { domainOwned, emailDomain } from "@switchboard/core/sso";
import type { Db } from "@switchboard/db/client";
import { redisKeys } from "@switchboard/core/contracts";
import { sha256 } from "@switchboard/db/crypto";
import {
  anyEnterpriseIssuerEnabled,
  findEnterpriseIssuerByIss,
  findUserForAssertion,
  memberTeamsForResource,
} from "@switchboard/db/queries/enterprise-issuer";
import {
  dynamicClientsAllowed,
  ensureOAuthResource,
  findActiveOAuthGrant,
  findOAuthClient,
  findOAuthGrantOfClient,
  grantOAuthClient,
} from "@switchboard/db/queries/oauth-grant";
import { invalidateAccess } from "@switchboard/runtime/invalidations";
import { issuerUrl, MCP_SCOPES, mcpResourceUrl, slugOfResource } from "@switchboard/runtime/mcp-authorization";
import type { RedisClient } from "@switchboard/runtime/redis-client";
import { actorLabel, recordAudit, requestOrigin } from "../audit/record";
import {
  ID_JAG_TYP,
  JWT_BEARER_GRANT,
  keySetFor,
  MAX_ASSERTION_AGE_SECONDS,
  type OAuthError,
  printable,
  Refusal,
  refuse,
  SKEW_SECONDS,
  verificationRefusal,
} from "./id-jag-assertion";

/**
 * Enterprise-managed authorization (the MCP ext-auth extension): an MCP client presents an Identity Assertion JWT
 * Authorization Grant (ID-JAG, draft-ietf-oauth-identity-assertion-authz-grant) that a trusted enterprise identity
 * provider issued for a member, as an RFC 7523 JWT bearer grant at the token endpoint, and gets the route's usual
 * access token without a consent page. Hooked in as a grant of Better Auth's oauth-provider plugin (its extension
 * API), so the token is minted by the provider itself: same format, audience, signing key and lifetime as after
 * consent. The team is the member's own (or the one whose server the resource names); the grant row behind the
 * token is an ordinary `oauth` grant, so the route, revocation and the Connect page treat it as any other.
 */

/** Marks the assertion used until it expires; false when it was used before (a replay). */
async function firstUse(
  redis: RedisClient,
  redisPrefix: string,
  iss: string,
  jti: string,
  exp: number,
): Promise<boolean> {
  const ttlMs = Math.max(1_000, (exp + SKEW_SECONDS) * 1000 - Date.now());
  const key = redisKeys.idJagAssertionUsed(redisPrefix, sha256(`${iss}\n${jti}`));
  return (await redis.set(key, "1", "PX", ttlMs, "NX")) === "OK";
}

type Exchange = {
  issuer: string | null;
  clientId: string | null;
  user: { id: string; email: string; name: string | null } | null;
  teamId: string | null;
  jti: string | null;
};

export function idJag({
  appUrl,
  db,
  redis,
  redisPrefix,
  egressFetch,
}: {
  appUrl: string;
  db: () => Db;
  redis: () => RedisClient;
  redisPrefix: string;
  egressFetch: FetchLike;
}): BetterAuthPlugin {
  const ourIssuer = issuerUrl(appUrl);

  async function exchange(
    ctx: { body?: unknown; context: { internalAdapter: { findUserById(id: string): Promise<unknown> } } },
    provider: OAuthProviderApi,
    seen: Exchange,
  ) {
    if (!(await anyEnterpriseIssuerEnabled(db())))
      refuse(
        "unsupported_grant_type",
        "no_issuer_enabled",
        "This Switchboard accepts no identity assertion grants: no enterprise identity provider is enabled.",
      );
    const body = (ctx.body ?? {}) as Record<string, unknown>;
    const assertion = body.assertion;
    if (typeof assertion !== "string" || assertion.length === 0 || assertion.length > 16_384)
      refuse("invalid_request", "no_assertion", "The request carries no assertion: send the ID-JAG as assertion.");
    let unverified: JWTPayload;
    try {
      decodeProtectedHeader(assertion as string);
      unverified = decodeJwt(assertion as string);
    } catch {
      return refuse("invalid_grant", "unreadable", "The assertion is not a readable JWT.");
    }
    // Until the client authenticates, the audit names the client the assertion claims to be for.
    if (printable(unverified.client_id, 200)) seen.clientId = unverified.client_id;
    if (!printable(unverified.iss)) refuse("invalid_grant", "no_issuer", "The assertion names no issuer (iss).");
    const iss = unverified.iss as string;
    const configured = await findEnterpriseIssuerByIss(db(), { issuer: iss });
    seen.issuer = configured ? iss : null;
    if (!configured)
      refuse("invalid_grant", "unknown_issuer", "The assertion's issuer is not a trusted identity provider here.");
    if (!configured!.enabled)
      refuse(
        "unsupported_grant_type",
        "issuer_disabled",
        "Identity assertion grants from this identity provider are turned off.",
      );

    // The client proves who it is (its registered credentials); the provider answers invalid_client otherwise.
    const { client, clientId } = await provider.authenticateClient({ scopes: ["mcp"] });
    seen.clientId = clientId;

    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(assertion as string, keySetFor(configured!.jwksUrl, egressFetch), {
        issuer: iss,
        audience: ourIssuer,
        typ: ID_JAG_TYP,
        clockTolerance: SKEW_SECONDS,
        maxTokenAge: MAX_ASSERTION_AGE_SECONDS,
        requiredClaims: ["sub", "aud", "client_id", "resource", "jti", "exp", "iat"],
      }));
    } catch (err) {
      throw verificationRefusal(err);
    }
    if (!printable(payload.jti, 512) || !printable(payload.sub, 512))
      refuse("invalid_grant", "claims", "The assertion's jti and sub claims must be strings.");
    seen.jti = payload.jti as string;
    if (payload.client_id !== clientId)
      refuse("invalid_grant", "client_mismatch", "The assertion was issued to another client (its client_id).");
    if (!(await firstUse(redis(), redisPrefix, iss, payload.jti as string, payload.exp!)))
      refuse("invalid_grant", "replayed", "The assertion was already used: ask the identity provider for a new one.");

    const resource = payload.resource;
    const slug = typeof resource === "string" ? slugOfResource(appUrl, resource) : null;
    if (typeof resource !== "string" || (resource !== mcpResourceUrl(appUrl, null) && slug === null))
      refuse("invalid_target", "foreign_resource", "The assertion's resource is not this Switchboard's MCP route.");
    if (body.resource !== undefined && body.resource !== resource)
      refuse("invalid_target", "resource_mismatch", "The requested resource differs from the assertion's.");

    const named = configured!.memberClaim === "email" ? payload.email : payload.sub;
    if (!printable(named, 320))
      refuse("invalid_grant", "no_member_claim", `The assertion carries no ${configured!.memberClaim} claim.`);
    // An issuer that names members by address owns some domains; an address outside them is someone it cannot
    // vouch for (rows from before the field have none, and name any address as they always did).
    const owned = configured!.emailDomains;
    if (configured!.memberClaim === "email" && owned.length > 0) {
      const domain = emailDomain(named as string);
      if (!domain || !domainOwned(domain, owned))
        refuse(
          "invalid_grant",
          "foreign_domain",
          "The assertion's email is outside the domains this identity provider owns here.",
        );
    }
    const user = await findUserForAssertion(db(), {
      claim: configured!.memberClaim,
      value: named as string,
      providerId: configured!.accountProviderId ?? iss,
    });
    seen.user = user;
    if (!user)
      refuse("invalid_grant", "unknown_subject", "The assertion's subject is not a member of this Switchboard.");

    const teams = await memberTeamsForResource(db(), { userId: user!.id, slug });
    const earlier = await findOAuthGrantOfClient(db(), { userId: user!.id, clientId });
    const teamId =
      teams.length === 1 ? teams[0]! : earlier && teams.includes(earlier.teamId) ? earlier.teamId : undefined;
    if (teams.length === 0)
      refuse(
        "invalid_target",
        "outside_teams",
        slug ? "The resource is a server of none of the member's teams." : "The member belongs to no team.",
      );
    if (!teamId)
      refuse(
        "invalid_target",
        "ambiguous_team",
        "The member belongs to several teams: name one team's server as the resource, or approve the client once.",
      );
    seen.teamId = teamId!;

    const registered = await findOAuthClient(db(), { clientId });
    if (!registered?.clientDiscoveryId && !(await dynamicClientsAllowed(db(), { teamId: teamId! })))
      refuse(
        "unauthorized_client",
        "dynamic_client_refused",
        "The member's team does not accept applications that registered themselves.",
      );

    // The grant row the route checks: the member's live one for this client in this team, or a new one.
    const live = await findActiveOAuthGrant(db(), { userId: user!.id, clientId, issuedAt: new Date() });
    if (!live || live.teamId !== teamId) {
      const { replaced } = await grantOAuthClient(db(), {
        userId: user!.id,
        teamId: teamId!,
        clientId,
        clientName: registered?.name ?? clientId,
        mode: "all",
      });
      for (const tokenId of replaced) await invalidateAccess({ tokenId });
    }
    if (slug)
      await ensureOAuthResource(db(), {
        identifier: resource as string,
        name: `MCP server ${slug}`,
        allowedScopes: [...MCP_SCOPES],
      });

    const fullUser = await ctx.context.internalAdapter.findUserById(user!.id);
    if (!fullUser)
      refuse("invalid_grant", "unknown_subject", "The assertion's subject is not a member of this Switchboard.");
    // No refresh token: the client asks the identity provider for a new assertion, so the IdP's policy keeps applying.
    return provider.issueTokens({
      client,
      scopes: ["mcp"],
      user: fullUser as Parameters<OAuthProviderApi["issueTokens"]>[0]["user"],
      resources: [resource as string],
    });
  }

  async function audit(headers: Headers | undefined, seen: Exchange, outcome: { refused: Refusal | null }) {
    await recordAudit(db(), {
      teamId: seen.teamId,
      actorId: seen.user?.id ?? null,
      actorLabel: seen.user ? actorLabel(seen.user) : "anonymous",
      action: outcome.refused ? "oauth.id_jag_refused" : "oauth.id_jag_exchanged",
      targetType: "oauth_client",
      targetId: seen.clientId,
      targetLabel: seen.issuer,
      detail: {
        issuer: seen.issuer,
        jti: seen.jti,
        ...(outcome.refused ? { error: outcome.refused.error, reason: outcome.refused.reason } : {}),
      },
      ...(headers ? requestOrigin(headers) : { ip: null, client: null }),
    });
  }

  return {
    id: "switchboard-id-jag",
    init(ctx) {
      extendOAuthProvider(ctx as Parameters<typeof extendOAuthProvider>[0], {
        grants: {
          [JWT_BEARER_GRANT]: async ({ ctx: endpoint, provider }) => {
            const seen: Exchange = { issuer: null, clientId: null, user: null, teamId: null, jti: null };
            try {
              const tokens = await exchange(endpoint as Parameters<typeof exchange>[0], provider, seen);
              await audit(endpoint.request?.headers, seen, { refused: null });
              return tokens;
            } catch (err) {
              const refusal =
                err instanceof Refusal
                  ? err
                  : err instanceof APIError || (err as { statusCode?: unknown })?.statusCode
                    ? clientRefusal(err)
                    : null;
              if (!refusal) throw err;
              await audit(endpoint.request?.headers, seen, { refused: refusal });
              if (err instanceof Refusal)
                throw new APIError(refusal.error === "invalid_client" ? "UNAUTHORIZED" : "BAD_REQUEST", {
                  error: refusal.error,
                  error_description: refusal.description,
                });
              throw err;
            }
          },
        },
      });
    },
  };
}

/** The provider's own refusal (client authentication, mostly), kept as it answered and recorded with its code. */
function clientRefusal(err: unknown): Refusal {
  const body = (err as { body?: { error?: unknown; error_description?: unknown } }).body ?? {};
  const error = typeof body.error === "string" ? body.error : "invalid_client";
  const description = typeof body.error_description === "string" ? body.error_description : "";
  return new Refusal(error as OAuthError, description, error);
}

/**
 * The authorization server metadata as MCP clients read it: the JWT bearer grant is advertised only while some
 * enterprise identity provider is enabled (the provider lists every registered grant).
 */
export async function withIdJagAdvertised(db: Db, document: Record<string, unknown>) {
  const grants = document.grant_types_supported;
  if (!Array.isArray(grants) || (await anyEnterpriseIssuerEnabled(db))) return document;
  return { ...document, grant_types_supported: grants.filter((g) => g !== JWT_BEARER_GRANT) };
}
