/** RFC 7644 §3.12: every SCIM error is this JSON shape, with the HTTP status repeated as a string. */
export const SCIM_ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error";
export const SCIM_CONTENT_TYPE = "application/scim+json";

export type ScimType =
  | "invalidFilter"
  | "tooMany"
  | "uniqueness"
  | "mutability"
  | "invalidSyntax"
  | "invalidPath"
  | "noTarget"
  | "invalidValue"
  | "invalidVers"
  | "sensitive";

/** Thrown by the SCIM layer for a refusal the provider should read; anything else answers 500. */
export class ScimError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly scimType?: ScimType,
  ) {
    super(detail);
    this.name = "ScimError";
  }
}

export function scimJson(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": SCIM_CONTENT_TYPE, "cache-control": "no-store", ...headers },
  });
}

export function scimErrorResponse(err: ScimError, headers: Record<string, string> = {}): Response {
  return scimJson(
    {
      schemas: [SCIM_ERROR_SCHEMA],
      status: String(err.status),
      detail: err.detail,
      ...(err.scimType ? { scimType: err.scimType } : {}),
    },
    err.status,
    headers,
  );
}
