import { ScimError } from "./errors";
import { GROUP_SCHEMA, listResponse, USER_SCHEMA } from "./resources";

/**
 * SCIM discovery (RFC 7644 §4, RFC 7643 §5-7): what this service provider supports, the resource types it serves
 * and the attributes it keeps, as Okta and Entra ID read them before provisioning. Describes what handler.ts and
 * resources.ts do; keep them in step.
 */

const SPC_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig";
const RESOURCE_TYPE_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ResourceType";
const SCHEMA_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Schema";

type Attribute = {
  name: string;
  type: "string" | "boolean" | "complex" | "reference";
  multiValued: boolean;
  description: string;
  required: boolean;
  caseExact: boolean;
  mutability: "readOnly" | "readWrite" | "immutable" | "writeOnly";
  returned: "always" | "never" | "default" | "request";
  uniqueness: "none" | "server" | "global";
  subAttributes?: Attribute[];
  referenceTypes?: string[];
};

const attr = (
  name: string,
  description: string,
  over: Partial<Omit<Attribute, "name" | "description">> = {},
): Attribute => ({
  name,
  type: "string",
  multiValued: false,
  description,
  required: false,
  caseExact: false,
  mutability: "readWrite",
  returned: "default",
  uniqueness: "none",
  ...over,
});

const USER_ATTRIBUTES: Attribute[] = [
  attr("userName", "The person's sign-in name at the provider; unique regardless of case.", {
    required: true,
    uniqueness: "server",
  }),
  attr("name", "The person's name; kept as the display name when displayName is not sent.", {
    type: "complex",
    subAttributes: [
      attr("formatted", "The full name."),
      attr("givenName", "The given name."),
      attr("familyName", "The family name."),
    ],
  }),
  attr("displayName", "The name shown in the console."),
  attr("active", "False ends every session, token and grant of the person until it is true again.", {
    type: "boolean",
  }),
  attr("emails", "Email addresses; the primary one (else the first) is the account's address.", {
    type: "complex",
    multiValued: true,
    subAttributes: [
      attr("value", "The address."),
      attr("type", "A label such as work."),
      attr("primary", "Whether this is the account's address.", { type: "boolean" }),
    ],
  }),
  attr("groups", "The SCIM groups the person is in; change them through /Groups.", {
    type: "complex",
    multiValued: true,
    mutability: "readOnly",
    subAttributes: [
      attr("value", "The group's id.", { mutability: "readOnly" }),
      attr("$ref", "The group's URI.", { type: "reference", referenceTypes: ["Group"], mutability: "readOnly" }),
      attr("display", "The group's name.", { mutability: "readOnly" }),
    ],
  }),
];

const GROUP_ATTRIBUTES: Attribute[] = [
  attr("displayName", "The group's name; unique regardless of case; group mappings match it.", {
    required: true,
    uniqueness: "server",
  }),
  attr("members", "The group's members: users provisioned over SCIM.", {
    type: "complex",
    multiValued: true,
    subAttributes: [
      attr("value", "The user's id.", { mutability: "immutable" }),
      attr("$ref", "The user's URI.", { type: "reference", referenceTypes: ["User"], mutability: "immutable" }),
      attr("display", "The user's address.", { mutability: "readOnly" }),
    ],
  }),
];

const SCHEMAS = [
  { id: USER_SCHEMA, name: "User", description: "A Switchboard account.", attributes: USER_ATTRIBUTES },
  {
    id: GROUP_SCHEMA,
    name: "Group",
    description: "A group whose name can map to a team.",
    attributes: GROUP_ATTRIBUTES,
  },
];

const RESOURCE_TYPES = [
  { id: "User", name: "User", endpoint: "/Users", description: "Accounts", schema: USER_SCHEMA },
  { id: "Group", name: "Group", endpoint: "/Groups", description: "Groups", schema: GROUP_SCHEMA },
];

export function serviceProviderConfig(base: string, maxResults: number) {
  return {
    schemas: [SPC_SCHEMA],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: "oauthbearertoken",
        name: "Bearer token",
        description: "The deployment's SCIM token, created by a deployment owner in the console.",
        primary: true,
      },
    ],
    meta: { resourceType: "ServiceProviderConfig", location: `${base}/ServiceProviderConfig` },
  };
}

function schemaResource(s: (typeof SCHEMAS)[number], base: string) {
  return { schemas: [SCHEMA_SCHEMA], ...s, meta: { resourceType: "Schema", location: `${base}/Schemas/${s.id}` } };
}

function resourceTypeResource(t: (typeof RESOURCE_TYPES)[number], base: string) {
  return {
    schemas: [RESOURCE_TYPE_SCHEMA],
    ...t,
    schemaExtensions: [],
    meta: { resourceType: "ResourceType", location: `${base}/ResourceTypes/${t.id}` },
  };
}

/**
 * The answer to GET /ServiceProviderConfig, /Schemas[/id] or /ResourceTypes[/id], or null for another path.
 * Paging and sorting are ignored as §4 says; a filter answers 403, so no client takes it for applied.
 */
export function discovery({
  resource,
  id,
  url,
  base,
  maxResults,
}: {
  resource: string | undefined;
  id: string | undefined;
  url: URL;
  base: string;
  maxResults: number;
}): unknown {
  if (resource !== "ServiceProviderConfig" && resource !== "Schemas" && resource !== "ResourceTypes") return null;
  if (url.searchParams.has("filter")) throw new ScimError(403, `${resource} cannot be filtered: read it whole.`);
  if (resource === "ServiceProviderConfig") {
    if (id !== undefined) throw new ScimError(404, "No such SCIM resource.");
    return serviceProviderConfig(base, maxResults);
  }
  if (resource === "Schemas") {
    if (id === undefined)
      return listResponse(
        SCHEMAS.map((s) => schemaResource(s, base)),
        SCHEMAS.length,
        1,
      );
    const found = SCHEMAS.find((s) => s.id.toLowerCase() === id.toLowerCase());
    if (!found) throw new ScimError(404, `No such schema: this server has ${SCHEMAS.map((s) => s.id).join(" and ")}.`);
    return schemaResource(found, base);
  }
  if (id === undefined)
    return listResponse(
      RESOURCE_TYPES.map((t) => resourceTypeResource(t, base)),
      RESOURCE_TYPES.length,
      1,
    );
  const found = RESOURCE_TYPES.find((t) => t.id.toLowerCase() === id.toLowerCase());
  if (!found) throw new ScimError(404, "No such resource type: this server has User and Group.");
  return resourceTypeResource(found, base);
}
