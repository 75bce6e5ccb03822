import { getDb } from "@switchboard/db/client";
import { makeUser } from "@switchboard/db/testing";
import { DELETE, GET, PATCH, POST, PUT } from "~/app/api/scim/v2/[...path]/route";
import { createScimToken } from "~/server/services/scim.service";

const HANDLERS = { GET, POST, PUT, PATCH, DELETE } as const;

/** The deployment's SCIM token, created as a deployment owner does it (one per deployment: every caller shares it). */
let token: Promise<string> | null = null;
export function scimToken(): Promise<string> {
  token ??= (async () => {
    const owner = await makeUser(getDb(), { deploymentOwner: true });
    return (await createScimToken({ db: getDb(), actor: { userId: owner.id } })).token;
  })();
  return token;
}

/** Forgets the cached token: the next `scimToken()` creates one (after another test file rotated it). */
export function forgetScimToken() {
  token = null;
}

/**
 * One SCIM request as an identity provider sends it, through the console's route handler. With the deployment's
 * token (no `bearer`), a 401 means another test file rotated or revoked it (the authorization matrix does, in the
 * same database): the request goes once more with a new token.
 */
export async function scim(
  method: keyof typeof HANDLERS,
  path: string,
  body?: unknown,
  options: { bearer?: string | null; raw?: string; from?: string } = {},
): Promise<ScimAnswer> {
  const answer = await send(method, path, body, options);
  if (answer.status !== 401 || options.bearer !== undefined) return answer;
  token = null;
  return send(method, path, body, options);
}

interface ScimAnswer {
  status: number;
  contentType: string | null;
  retryAfter: string | null;
  body: Record<string, unknown> | null;
}

async function send(
  method: keyof typeof HANDLERS,
  path: string,
  body: unknown,
  { bearer, raw, from }: { bearer?: string | null; raw?: string; from?: string },
): Promise<ScimAnswer> {
  const auth = bearer === undefined ? await scimToken() : bearer;
  const headers = new Headers({ "content-type": "application/scim+json" });
  if (auth !== null) headers.set("authorization", `Bearer ${auth}`);
  // As the gateway forwards it: what the client claimed, then the peer's address.
  if (from) headers.set("x-forwarded-for", `203.0.113.250, ${from}`);
  const res = await HANDLERS[method](
    new Request(`http://localhost/api/scim/v2${path}`, {
      method,
      headers,
      body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
    }),
  );
  const text = await res.text();
  return {
    status: res.status,
    contentType: res.headers.get("content-type"),
    retryAfter: res.headers.get("retry-after"),
    body: text ? (JSON.parse(text) as Record<string, unknown>) : null,
  };
}

export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
export const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
export const PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

export function scimUser(email: string, over: Record<string, unknown> = {}) {
  return {
    schemas: [USER_SCHEMA],
    userName: email,
    externalId: `ext-${email}`,
    name: { givenName: "Ada", familyName: "Lovelace" },
    emails: [{ value: email, type: "work", primary: true }],
    active: true,
    ...over,
  };
}

export function patch(...Operations: Array<Record<string, unknown>>) {
  return { schemas: [PATCH_SCHEMA], Operations };
}
