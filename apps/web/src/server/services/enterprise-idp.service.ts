import "server-only";
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
import { fetchJwksKeyCount } from "../auth/id-jag";
import { AppError } from "../errors";

/**
 * Enterprise identity providers whose identity assertion grants (ID-JAG) MCP clients may exchange for the route's
 * access tokens (auth/id-jag.ts), managed by deployment owners. Changes are in the audit trail (tRPC middleware).
 */

const NOT_FOUND = "Identity provider not found.";
const TAKEN = "Another identity provider already has this issuer URL.";

function checkedInput(input: EnterpriseIssuerInput): EnterpriseIssuerInput {
  const refusal = urlRefusal(input.jwksUrl);
  if (refusal) throw new AppError("INVALID_INPUT", `JWKS URL: ${refusal}`);
  if (input.memberClaim === "email") return { ...input, accountProviderId: null };
  return input;
}

export async function list({ db }: { db: Db }) {
  return listEnterpriseIssuers(db);
}

export async function add({ db, input }: { db: Db; input: EnterpriseIssuerInput }) {
  const created = await createEnterpriseIssuer(db, checkedInput(input));
  if (!created) throw new AppError("CONFLICT", TAKEN);
  return created;
}

export async function update({ db, id, input }: { db: Db; id: string; input: EnterpriseIssuerInput }) {
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
