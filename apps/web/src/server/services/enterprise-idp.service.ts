import "server-only";
import { parseSsoDomains } from "@switchboard/core/sso";
import type { Db } from "@switchboard/db/client";
import {
  createEnterpriseIssuer,
  deleteEnterpriseIssuer,
  findEnterpriseIssuer,
  listEnterpriseIssuers,
  setEnterpriseIssuerEnabled,
  updateEnterpriseIssuer,
  type EnterpriseIssuerInput,
} from "@switchboard/db/queries/enterprise-issuer";
import { upstreamEgressFetch, urlRefusal } from "@switchboard/runtime/egress";
import { fetchJwksKeyCount } from "../auth/id-jag-assertion";
import { AppError } from "../errors";

/**
 * Enterprise identity providers whose identity assertion grants (ID-JAG) MCP clients may exchange for the route's
 * access tokens (auth/id-jag.ts), managed by deployment owners. Changes are in the audit trail (tRPC middleware).
 */

const NOT_FOUND = "Identity provider not found.";
const TAKEN = "Another identity provider already has this issuer URL.";

/** As the console sends it: the email domains as one comma- or space-separated text. */
export type IssuerFormInput = Omit<EnterpriseIssuerInput, "emailDomains"> & { emailDomains: string };

function checkedInput({ emailDomains, ...input }: IssuerFormInput): EnterpriseIssuerInput {
  const refusal = urlRefusal(input.jwksUrl);
  if (refusal) throw new AppError("INVALID_INPUT", `JWKS URL: ${refusal}`);
  if (input.memberClaim === "sub") return { ...input, emailDomains: [] };
  // A provider that names members by address names only addresses of the domains it owns (the same list rules as
  // an SSO provider's).
  const parsed = parseSsoDomains(emailDomains);
  if ("problem" in parsed) throw new AppError("INVALID_INPUT", `Email domains: ${parsed.problem}`);
  return { ...input, accountProviderId: null, emailDomains: parsed.domains };
}

export async function list({ db }: { db: Db }) {
  return listEnterpriseIssuers(db);
}

export async function add({ db, input }: { db: Db; input: IssuerFormInput }) {
  const created = await createEnterpriseIssuer(db, checkedInput(input));
  if (!created) throw new AppError("CONFLICT", TAKEN);
  return created;
}

export async function update({ db, id, input }: { db: Db; id: string; input: IssuerFormInput }) {
  const updated = await updateEnterpriseIssuer(db, { id, ...checkedInput(input) });
  if (updated === "conflict") throw new AppError("CONFLICT", TAKEN);
  if (!updated) throw new AppError("NOT_FOUND", NOT_FOUND);
  return updated;
}

export async function setEnabled({ db, id, enabled }: { db: Db; id: string; enabled: boolean }) {
  const updated = await setEnterpriseIssuerEnabled(db, { id, enabled });
  if (!updated) throw new AppError("NOT_FOUND", NOT_FOUND);
  return updated;
}

export async function remove({ db, id }: { db: Db; id: string }) {
  if (!(await deleteEnterpriseIssuer(db, { id }))) throw new AppError("NOT_FOUND", NOT_FOUND);
  return { id };
}

/** Fetches the provider's JWKS as the token endpoint would: the answer says how many keys it publishes, or why not. */
export async function test({ db, id }: { db: Db; id: string }) {
  const issuer = await findEnterpriseIssuer(db, { id });
  if (!issuer) throw new AppError("NOT_FOUND", NOT_FOUND);
  const refusal = urlRefusal(issuer.jwksUrl);
  if (refusal) return { ok: false, keys: 0, message: refusal, detail: null };
  try {
    const keys = await fetchJwksKeyCount(issuer.jwksUrl, upstreamEgressFetch());
    return keys > 0
      ? { ok: true, keys, message: `The JWKS answered with ${keys} signing key${keys === 1 ? "" : "s"}.`, detail: null }
      : { ok: false, keys, message: "The JWKS publishes no keys: no assertion could verify.", detail: null };
  } catch (err) {
    return {
      ok: false,
      keys: 0,
      message: "The JWKS could not be fetched or read.",
      detail: err instanceof Error ? err.message.slice(0, 300) : null,
    };
  }
}
