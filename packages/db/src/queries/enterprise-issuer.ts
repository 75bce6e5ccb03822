import type { DbTx } from "../client";

/**
 * Enterprise identity providers whose identity assertion grants (ID-JAG) the MCP route's authorization server
 * accepts, and the look-ups the grant needs: which member an assertion names, and which of their teams a resource
 * belongs to. Sign-in (SSO) providers are another model.
 */

export type IdpMemberClaim = "sub" | "email";

const ISSUER_FIELDS = {
  id: true,
  name: true,
  issuer: true,
  jwksUrl: true,
  memberClaim: true,
  accountProviderId: true,
  emailDomains: true,
  enabled: true,
  createdAt: true,
  updatedAt: true,
} as const;

export async function listEnterpriseIssuers(db: DbTx) {
  return db.enterpriseIdpIssuer.findMany({ select: ISSUER_FIELDS, orderBy: { createdAt: "asc" }, take: 100 });
}

export async function findEnterpriseIssuer(db: DbTx, { id }: { id: string }) {
  return db.enterpriseIdpIssuer.findUnique({ where: { id }, select: ISSUER_FIELDS });
}

/** The configured issuer whose `iss` is exactly this, enabled or not (null when none is configured). */
export async function findEnterpriseIssuerByIss(db: DbTx, { issuer }: { issuer: string }) {
  return db.enterpriseIdpIssuer.findUnique({ where: { issuer }, select: ISSUER_FIELDS });
}

export async function anyEnterpriseIssuerEnabled(db: DbTx): Promise<boolean> {
  return (await db.enterpriseIdpIssuer.count({ where: { enabled: true } })) > 0;
}

export type EnterpriseIssuerInput = {
  name: string;
  issuer: string;
  jwksUrl: string;
  memberClaim: IdpMemberClaim;
  accountProviderId: string | null;
  /** For `email`: the domains the provider owns (empty for `sub`). */
  emailDomains: string[];
};

/** Null when another provider already has this issuer URL. */
export async function createEnterpriseIssuer(db: DbTx, input: EnterpriseIssuerInput) {
  if (await db.enterpriseIdpIssuer.findUnique({ where: { issuer: input.issuer }, select: { id: true } })) return null;
  return db.enterpriseIdpIssuer.create({ data: { ...input, enabled: false }, select: ISSUER_FIELDS });
}

/** Null when the provider does not exist, or `conflict` when its new issuer URL is another provider's. */
export async function updateEnterpriseIssuer(db: DbTx, { id, ...input }: EnterpriseIssuerInput & { id: string }) {
  const clash = await db.enterpriseIdpIssuer.findUnique({ where: { issuer: input.issuer }, select: { id: true } });
  if (clash && clash.id !== id) return "conflict" as const;
  const { count } = await db.enterpriseIdpIssuer.updateMany({ where: { id }, data: input });
  return count ? findEnterpriseIssuer(db, { id }) : null;
}

export async function setEnterpriseIssuerEnabled(db: DbTx, { id, enabled }: { id: string; enabled: boolean }) {
  const { count } = await db.enterpriseIdpIssuer.updateMany({ where: { id }, data: { enabled } });
  return count ? findEnterpriseIssuer(db, { id }) : null;
}

export async function deleteEnterpriseIssuer(db: DbTx, { id }: { id: string }) {
  const { count } = await db.enterpriseIdpIssuer.deleteMany({ where: { id } });
  return count > 0;
}

/**
 * The member an assertion names: with `sub`, the user whose account linked under `providerId` has that id; with
 * `email`, the user with that address (addresses are stored lower-case). Null when nobody matches.
 */
export async function findUserForAssertion(
  db: DbTx,
  { claim, value, providerId }: { claim: IdpMemberClaim; value: string; providerId: string },
) {
  if (claim === "sub") {
    const account = await db.account.findFirst({
      where: { providerId, accountId: value },
      select: { user: { select: { id: true, email: true, name: true } } },
    });
    return account?.user ?? null;
  }
  return db.user.findUnique({ where: { email: value.toLowerCase() }, select: { id: true, email: true, name: true } });
}

/** The member's teams, and for a per-server resource only those with an installation of that slug. */
export async function memberTeamsForResource(db: DbTx, { userId, slug }: { userId: string; slug: string | null }) {
  const memberships = await db.membership.findMany({
    where: { userId, ...(slug ? { team: { installations: { some: { slug } } } } : {}) },
    select: { teamId: true },
    orderBy: { createdAt: "asc" },
  });
  return memberships.map((m) => m.teamId);
}
