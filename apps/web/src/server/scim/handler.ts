import "server-only";
import { getDb, type Db } from "@switchboard/db/client";
import { sha256 } from "@switchboard/db/crypto";
import { listScimGroups, listScimUsers, scimTokenMatches } from "@switchboard/db/queries/scim";
import { env } from "@switchboard/runtime/env";
import { logger } from "@switchboard/runtime/logger";
import { redis } from "@switchboard/runtime/redis";
import { redisRateLimitStorage } from "../auth/rate-limit-storage";
import { findUnsafeText, unsafeTextMessage } from "../http/unsafe-text";
import * as scim from "../services/scim.service";
import { discovery } from "./discovery";
import { ScimError, scimErrorResponse, scimJson } from "./errors";
import {
  applyGroupPatch,
  applyUserPatch,
  groupStateFromBody,
  listResponse,
  parseEqFilter,
  toScimGroup,
  toScimUser,
  userStateFromBody,
  userStateOf,
} from "./resources";

/**
 * The SCIM 2.0 service provider (RFC 7644) at /api/scim/v2: Users and Groups, authenticated with the deployment's
 * bearer token, counted per client address like the sign-in endpoints. Every request answers in SCIM's shape;
 * input never causes a 5xx (docs/scim.md).
 */

export const SCIM_BASE_PATH = "/api/scim/v2";
const MAX_BODY_BYTES = 1024 * 1024;
const MAX_PAGE = 200;
/** Requests per minute per client address: a full directory sync of a few thousand people fits. */
const RATE = { window: 60, max: 1200 };

function baseUrl(): string {
  return new URL(SCIM_BASE_PATH, env().APP_URL).toString().replace(/\/$/, "");
}

async function readBody(request: Request): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) throw new ScimError(413, "The request body is larger than 1 MB.", "tooMany");
  const text = await request.text();
  if (text.length > MAX_BODY_BYTES) throw new ScimError(413, "The request body is larger than 1 MB.", "tooMany");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ScimError(400, "The request body is not valid JSON.", "invalidSyntax");
  }
  const unsafe = findUnsafeText(body);
  if (unsafe) throw new ScimError(400, unsafeTextMessage(unsafe), "invalidValue");
  return body;
}

/** Beyond any directory: a startIndex past it answers an empty page (the database refuses larger offsets). */
const MAX_START_INDEX = 2_147_483_647;

function page(url: URL) {
  const int = (name: string, fallback: number) => {
    const raw = url.searchParams.get(name);
    const n = raw === null ? fallback : Number.parseInt(raw, 10);
    return Number.isFinite(n) ? n : fallback;
  };
  const startIndex = Math.min(MAX_START_INDEX, Math.max(1, int("startIndex", 1)));
  const count = Math.min(MAX_PAGE, Math.max(0, int("count", 100)));
  return { startIndex, skip: startIndex - 1, take: count };
}

function segmentsOf(url: URL): string[] {
  const rest = url.pathname.slice(url.pathname.indexOf(SCIM_BASE_PATH) + SCIM_BASE_PATH.length);
  return rest
    .split("/")
    .filter(Boolean)
    .map((s) => {
      let decoded: string;
      try {
        decoded = decodeURIComponent(s);
      } catch {
        throw new ScimError(404, "No such SCIM resource.");
      }
      if (findUnsafeText(decoded) || decoded.length > 128) throw new ScimError(404, "No such SCIM resource.");
      return decoded;
    });
}

function notAllowed(): never {
  throw new ScimError(405, "This method is not supported on this SCIM endpoint.");
}

async function users(db: Db, request: Request, url: URL, id: string | undefined): Promise<Response> {
  const base = baseUrl();
  if (id === undefined) {
    if (request.method === "GET") {
      const filter = parseEqFilter(url.searchParams.get("filter"), ["userName", "externalId"]);
      const { startIndex, skip, take } = page(url);
      const { total, rows } = await listScimUsers(db, {
        ...(filter?.attr === "userName" ? { userName: filter.value } : {}),
        ...(filter?.attr === "externalId" ? { externalId: filter.value } : {}),
        skip,
        take,
      });
      return scimJson(
        listResponse(
          rows.map((r) => toScimUser(r, base)),
          total,
          startIndex,
        ),
      );
    }
    if (request.method === "POST") {
      const row = await scim.provisionUser({ db, state: userStateFromBody(await readBody(request)) });
      const resource = toScimUser(row, base);
      return scimJson(resource, 201, { location: resource.meta.location });
    }
    return notAllowed();
  }
  const current = await scim.findScimUser(db, id);
  if (!current) throw new ScimError(404, `No user has the id “${id.slice(0, 64)}”.`);
  switch (request.method) {
    case "GET":
      return scimJson(toScimUser(current, base));
    case "PUT": {
      const state = userStateFromBody(await readBody(request));
      return scimJson(toScimUser(await scim.replaceUser({ db, current, state }), base));
    }
    case "PATCH": {
      const state = applyUserPatch(userStateOf(current), await readBody(request));
      return scimJson(toScimUser(await scim.replaceUser({ db, current, state }), base));
    }
    case "DELETE":
      await scim.deleteUser({ db, current });
      return new Response(null, { status: 204 });
    default:
      return notAllowed();
  }
}

async function groups(db: Db, request: Request, url: URL, id: string | undefined): Promise<Response> {
  const base = baseUrl();
  if (id === undefined) {
    if (request.method === "GET") {
      const filter = parseEqFilter(url.searchParams.get("filter"), ["displayName"]);
      const { startIndex, skip, take } = page(url);
      const { total, rows } = await listScimGroups(db, { displayName: filter?.value, skip, take });
      return scimJson(
        listResponse(
          rows.map((r) => toScimGroup(r, base)),
          total,
          startIndex,
        ),
      );
    }
    if (request.method === "POST") {
      const row = await scim.provisionGroup({ db, state: groupStateFromBody(await readBody(request)) });
      const resource = toScimGroup(row, base);
      return scimJson(resource, 201, { location: resource.meta.location });
    }
    return notAllowed();
  }
  const current = await scim.findScimGroup(db, id);
  if (!current) throw new ScimError(404, `No group has the id “${id.slice(0, 64)}”.`);
  const currentState = () => ({
    displayName: current.displayName,
    externalId: current.externalId,
    members: new Set(current.members.map((m) => m.userId)),
  });
  switch (request.method) {
    case "GET":
      return scimJson(toScimGroup(current, base));
    case "PUT": {
      const state = groupStateFromBody(await readBody(request));
      return scimJson(toScimGroup(await scim.replaceGroup({ db, current, state }), base));
    }
    case "PATCH": {
      const state = applyGroupPatch(currentState(), await readBody(request));
      return scimJson(toScimGroup(await scim.replaceGroup({ db, current, state }), base));
    }
    case "DELETE":
      await scim.deleteGroup({ db, current });
      return new Response(null, { status: 204 });
    default:
      return notAllowed();
  }
}

async function authenticate(db: Db, request: Request) {
  const match = /^Bearer\s+([\x21-\x7e]{1,512})\s*$/i.exec(request.headers.get("authorization") ?? "");
  if (!match || !(await scimTokenMatches(db, sha256(match[1]!))))
    throw new ScimError(401, "A valid SCIM bearer token is required: create one in Deployment settings.");
}

/**
 * The client's address as Better Auth's rate limit takes it (auth/account-options.ts, `trustedProxies`): the
 * gateway appends the peer's address to X-Forwarded-For, so the first address from the right that is not this
 * machine is the client's; addresses further left are whatever the client claimed.
 */
export function clientAddress(headers: Headers): string {
  const hops = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((h) => h.trim())
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) if (!LOOPBACK.has(hops[i]!)) return hops[i]!.slice(0, 64);
  return "local";
}
const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);

async function rateLimited(request: Request): Promise<number | null> {
  const e = env();
  const storage = redisRateLimitStorage({ redis, prefix: e.REDIS_PREFIX, logger });
  const verdict = await storage.consume(`scim|${clientAddress(request.headers)}`, RATE);
  return verdict.allowed ? null : (verdict.retryAfter ?? RATE.window);
}

export async function handleScim(request: Request): Promise<Response> {
  const db = getDb();
  try {
    const retryAfter = await rateLimited(request);
    if (retryAfter !== null)
      return scimErrorResponse(new ScimError(429, "Too many SCIM requests; try again shortly."), {
        "retry-after": String(retryAfter),
      });
    const url = new URL(request.url);
    await authenticate(db, request);
    const unsafeQuery = findUnsafeText(Object.fromEntries(url.searchParams));
    if (unsafeQuery) throw new ScimError(400, unsafeTextMessage(unsafeQuery), "invalidValue");
    const [resource, id, ...rest] = segmentsOf(url);
    if (rest.length > 0) throw new ScimError(404, "No such SCIM resource.");
    const discovered = discovery({ resource, id, url, base: baseUrl(), maxResults: MAX_PAGE });
    if (discovered !== null) {
      if (request.method !== "GET") notAllowed();
      return scimJson(discovered);
    }
    if (resource === "Users") return await users(db, request, url, id);
    if (resource === "Groups") return await groups(db, request, url, id);
    throw new ScimError(404, "No such SCIM resource: use /Users or /Groups (/ResourceTypes lists them).");
  } catch (err) {
    if (err instanceof ScimError)
      return scimErrorResponse(err, err.status === 401 ? { "www-authenticate": 'Bearer realm="scim"' } : {});
    logger.error({ err, method: request.method }, "SCIM request failed");
    return scimErrorResponse(new ScimError(500, "Something went wrong on our side; the provider may retry."));
  }
}
