import { z } from "zod";
import type { ScimGroupRow, ScimUserRow } from "@switchboard/db/queries/scim";
import { ScimError } from "./errors";

/** SCIM 2.0 Users and Groups (RFC 7643) as Switchboard stores them, and the provider's changes to them (RFC 7644). */

export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
export const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
export const LIST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse";

const MAX_TEXT = 256;

/** What a provider may set on a user; attributes Switchboard does not keep (title, addresses, ...) are ignored. */
export interface ScimUserState {
  userName: string;
  externalId: string | null;
  active: boolean;
  displayName: string | null;
  givenName: string | null;
  familyName: string | null;
  email: string | null;
}

export interface ScimGroupState {
  displayName: string;
  externalId: string | null;
  members: Set<string>;
}

// ---- reading values as providers send them --------------------------------------------------------------------

function invalid(detail: string): never {
  throw new ScimError(400, detail, "invalidValue");
}

/** Entra sends booleans as "True"/"False". */
function bool(value: unknown, attr: string): boolean {
  if (typeof value === "boolean") return value;
  if (typeof value === "string" && /^(true|false)$/i.test(value.trim())) return value.trim().toLowerCase() === "true";
  return invalid(`${attr} must be true or false.`);
}

function text(value: unknown, attr: string, { nullable }: { nullable: boolean }): string | null {
  if (value === null || value === undefined) {
    if (nullable) return null;
    return invalid(`${attr} is required.`);
  }
  if (typeof value !== "string") return invalid(`${attr} must be a string.`);
  const trimmed = value.trim();
  if (trimmed.length > MAX_TEXT) return invalid(`${attr} has at most ${MAX_TEXT} characters.`);
  if (!trimmed && !nullable) return invalid(`${attr} must not be empty.`);
  return trimmed || null;
}

function object(value: unknown, attr: string): Record<string, unknown> {
  if (!value || typeof value !== "object" || Array.isArray(value)) return invalid(`${attr} must be an object.`);
  return value as Record<string, unknown>;
}

/** The primary address of `emails`, or the first. */
function emailOf(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (!Array.isArray(value)) return invalid("emails must be a list.");
  const entries = value.map((e) => object(e, "Each of emails"));
  const chosen = entries.find((e) => e.primary === true || e.primary === "true" || e.primary === "True") ?? entries[0];
  return chosen ? text(chosen.value, "emails.value", { nullable: true }) : null;
}

const USER_PREFIX = `${USER_SCHEMA.toLowerCase()}:`;
const GROUP_PREFIX = `${GROUP_SCHEMA.toLowerCase()}:`;

function attrPath(path: string, prefix: string): string {
  const lower = path.trim().toLowerCase();
  return lower.startsWith(prefix) ? lower.slice(prefix.length) : lower;
}

/** Sets one attribute of a user (`value` undefined: removed). */
function setUserAttr(state: ScimUserState, rawPath: string, value: unknown) {
  const path = attrPath(rawPath, USER_PREFIX);
  switch (path) {
    case "active":
      if (value !== undefined && value !== null) state.active = bool(value, "active");
      return;
    case "username":
      state.userName = text(value, "userName", { nullable: false })!;
      return;
    case "externalid":
      state.externalId = text(value, "externalId", { nullable: true });
      return;
    case "displayname":
      state.displayName = text(value, "displayName", { nullable: true });
      return;
    case "name": {
      const name = value === undefined || value === null ? {} : object(value, "name");
      state.givenName = text(name.givenName, "name.givenName", { nullable: true });
      state.familyName = text(name.familyName, "name.familyName", { nullable: true });
      if (name.formatted !== undefined && !state.displayName)
        state.displayName = text(name.formatted, "name.formatted", { nullable: true });
      return;
    }
    case "name.givenname":
      state.givenName = text(value, "name.givenName", { nullable: true });
      return;
    case "name.familyname":
      state.familyName = text(value, "name.familyName", { nullable: true });
      return;
    case "emails":
      state.email = emailOf(value);
      return;
    default:
      // `emails[type eq "work"].value` and the like: the one address Switchboard keeps.
      if (path.startsWith("emails[") || path === "emails.value") {
        state.email = Array.isArray(value) ? emailOf(value) : text(value, "emails.value", { nullable: true });
      }
    // Anything else (title, addresses, the enterprise extension...) is not kept.
  }
}

export function userStateOf(row: ScimUserRow): ScimUserState {
  return {
    userName: row.userName,
    externalId: row.externalId,
    active: row.active,
    displayName: row.user.name,
    givenName: null,
    familyName: null,
    email: row.user.email,
  };
}

/** A full user resource (POST, PUT): everything not sent is cleared, as RFC 7644 §3.5.1 says. */
export function userStateFromBody(body: unknown): ScimUserState {
  const input = object(body, "The request body");
  const state: ScimUserState = {
    userName: "",
    externalId: null,
    active: true,
    displayName: null,
    givenName: null,
    familyName: null,
    email: null,
  };
  for (const [key, value] of Object.entries(input)) {
    if (key === "schemas" || key === "id" || key === "meta" || key === "groups") continue;
    setUserAttr(state, key, value);
  }
  if (!state.userName) invalid("userName is required.");
  return state;
}

interface PatchOperation {
  op: "add" | "replace" | "remove";
  path: string | null;
  value: unknown;
}

function patchOperations(body: unknown): PatchOperation[] {
  const input = object(body, "The request body");
  const ops = input.Operations ?? input.operations;
  if (!Array.isArray(ops) || ops.length === 0)
    throw new ScimError(400, "A PATCH request needs a non-empty Operations list.", "invalidSyntax");
  if (ops.length > 1000) throw new ScimError(400, "At most 1,000 operations per request.", "tooMany");
  return ops.map((raw) => {
    const o = object(raw, "Each operation");
    const op = typeof o.op === "string" ? o.op.toLowerCase() : "";
    if (op !== "add" && op !== "replace" && op !== "remove")
      throw new ScimError(
        400,
        `Unknown PATCH operation “${String(o.op).slice(0, 40)}”: use add, replace or remove.`,
        "invalidSyntax",
      );
    if (o.path !== undefined && typeof o.path !== "string")
      throw new ScimError(400, "An operation's path must be a string.", "invalidPath");
    return { op, path: typeof o.path === "string" && o.path.trim() ? o.path : null, value: o.value };
  });
}

export function applyUserPatch(current: ScimUserState, body: unknown): ScimUserState {
  const state = { ...current };
  for (const { op, path, value } of patchOperations(body)) {
    if (path === null) {
      if (op === "remove") throw new ScimError(400, "A remove operation needs a path.", "noTarget");
      for (const [key, v] of Object.entries(object(value, "The operation's value"))) setUserAttr(state, key, v);
    } else if (op === "remove") {
      const attr = attrPath(path, USER_PREFIX);
      if (attr === "username") throw new ScimError(400, "userName cannot be removed.", "mutability");
      setUserAttr(state, path, attr === "active" ? undefined : null);
    } else setUserAttr(state, path, value);
  }
  return state;
}

/** The address and name to store: the primary email, else a userName that is an address. */
export function userRecordOf(state: ScimUserState) {
  const email = (state.email ?? (state.userName.includes("@") ? state.userName : "")).toLowerCase();
  if (!z.email().safeParse(email).success)
    invalid("A user needs an email address: send emails, or a userName that is an address.");
  const parts = [state.givenName, state.familyName].filter(Boolean).join(" ");
  return {
    email,
    name: state.displayName || parts || state.userName,
    userName: state.userName,
    externalId: state.externalId,
    active: state.active,
  };
}

// ---- groups ---------------------------------------------------------------------------------------------------

function memberIds(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  if (list.length > 10_000) throw new ScimError(400, "At most 10,000 members per request.", "tooMany");
  return list.map((m) => text(object(m, "Each member").value, "members.value", { nullable: false })!);
}

export function groupStateFromBody(body: unknown): ScimGroupState {
  const input = object(body, "The request body");
  return {
    displayName: text(input.displayName, "displayName", { nullable: false })!,
    externalId: text(input.externalId, "externalId", { nullable: true }),
    members: new Set(memberIds(input.members)),
  };
}

const MEMBER_FILTER = /^members\[\s*value\s+eq\s+"([^"]{1,256})"\s*\]$/i;

function setGroupAttr(state: ScimGroupState, op: PatchOperation["op"], rawPath: string, value: unknown) {
  const path = attrPath(rawPath, GROUP_PREFIX);
  if (path === "displayname") {
    if (op === "remove") throw new ScimError(400, "displayName cannot be removed.", "mutability");
    state.displayName = text(value, "displayName", { nullable: false })!;
  } else if (path === "externalid") {
    state.externalId = op === "remove" ? null : text(value, "externalId", { nullable: true });
  } else if (path === "members") {
    const ids = memberIds(value);
    if (op === "add") ids.forEach((id) => state.members.add(id));
    else if (op === "replace") state.members = new Set(ids);
    else if (value === undefined || value === null) state.members.clear();
    else ids.forEach((id) => state.members.delete(id));
  } else {
    const match = MEMBER_FILTER.exec(rawPath.trim());
    if (!match && /^members\s*\[/i.test(path))
      throw new ScimError(400, 'A members filter reads members[value eq "id"].', "invalidPath");
    if (!match) return; // attributes Switchboard does not keep
    if (op !== "remove")
      throw new ScimError(400, "Use add or replace on members, or remove with a filter.", "invalidPath");
    state.members.delete(match[1]!);
  }
}

export function applyGroupPatch(current: ScimGroupState, body: unknown): ScimGroupState {
  const state: ScimGroupState = { ...current, members: new Set(current.members) };
  for (const { op, path, value } of patchOperations(body)) {
    if (path !== null) setGroupAttr(state, op, path, value);
    else {
      if (op === "remove") throw new ScimError(400, "A remove operation needs a path.", "noTarget");
      for (const [key, v] of Object.entries(object(value, "The operation's value")))
        if (key !== "id" && key !== "schemas") setGroupAttr(state, op, key, v);
    }
  }
  return state;
}

// ---- answers --------------------------------------------------------------------------------------------------

export function toScimUser(row: ScimUserRow, base: string) {
  return {
    schemas: [USER_SCHEMA],
    id: row.userId,
    ...(row.externalId ? { externalId: row.externalId } : {}),
    userName: row.userName,
    name: { formatted: row.user.name },
    displayName: row.user.name,
    active: row.active,
    emails: [{ value: row.user.email, type: "work", primary: true }],
    groups: row.user.scimGroups.map(({ group }) => ({
      value: group.id,
      display: group.displayName,
      $ref: `${base}/Groups/${group.id}`,
    })),
    meta: {
      resourceType: "User",
      created: row.createdAt.toISOString(),
      lastModified: row.updatedAt.toISOString(),
      location: `${base}/Users/${row.userId}`,
    },
  };
}

export function toScimGroup(row: ScimGroupRow, base: string) {
  return {
    schemas: [GROUP_SCHEMA],
    id: row.id,
    ...(row.externalId ? { externalId: row.externalId } : {}),
    displayName: row.displayName,
    members: row.members.map((m) => ({ value: m.userId, display: m.user.email, $ref: `${base}/Users/${m.userId}` })),
    meta: {
      resourceType: "Group",
      created: row.createdAt.toISOString(),
      lastModified: row.updatedAt.toISOString(),
      location: `${base}/Groups/${row.id}`,
    },
  };
}

export function listResponse(resources: unknown[], total: number, startIndex: number) {
  return {
    schemas: [LIST_SCHEMA],
    totalResults: total,
    startIndex,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}

const FILTER = /^\s*([A-Za-z][\w.:]*)\s+eq\s+"((?:[^"\\]|\\.){0,256})"\s*$/i;

/** The one filter form providers use to look a resource up (`userName eq "x"`); others answer invalidFilter. */
export function parseEqFilter(
  filter: string | null,
  allowed: readonly string[],
): { attr: string; value: string } | null {
  if (filter === null || filter.trim() === "") return null;
  const match = FILTER.exec(filter);
  const attr = match ? attrPath(match[1]!, USER_PREFIX) : "";
  const known = allowed.find((a) => a.toLowerCase() === attr);
  if (!match || !known)
    throw new ScimError(
      400,
      `Only ${allowed.map((a) => `${a} eq "…"`).join(" and ")} filters are supported.`,
      "invalidFilter",
    );
  return { attr: known, value: match[2]!.replace(/\\(.)/g, "$1") };
}
