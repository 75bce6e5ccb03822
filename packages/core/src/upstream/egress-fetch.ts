import type dns from "node:dns";
import http from "node:http";
import https from "node:https";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  checkEgressUrl,
  defaultPort,
  egressLookup,
  EgressRefusedError,
  STRICT_EGRESS_POLICY,
  type EgressDecision,
  type EgressPolicy,
} from "../egress";
import { headerRecord, isPlainBody, markSignalSafe, nodeRequest, type PlainBody } from "./node-fetch";

const MAX_REDIRECTS = 20;
/** Origins whose decision an egress fetch keeps (past this, it starts over). */
const MAX_DECISIONS = 1_024;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * The fetch for everything a configured URL leads to (remote MCP servers, health probes, the OAuth discovery,
 * registration and token endpoints those servers name): Node's HTTP client with the egress policy applied to
 * the address each connection actually goes to. IP literal hosts are checked before the request; host names
 * by a `lookup` that validates every address they resolve to, so DNS rebinding gets no further than the check.
 * Redirects are followed here (never by a fetch that skips the check), each hop checked again. Unlike
 * `nodeFetch` this never falls back to the global fetch. `resolve` replaces the system resolver (tests: a
 * hosts-style table).
 */
export function egressFetch(policy: EgressPolicy, options: { resolve?: typeof dns.lookup } = {}): FetchLike {
  // Own pools: a socket opened for an unchecked request (the worker bridge) is never reused by a checked one.
  const agents = {
    "http:": new http.Agent({ keepAlive: true, scheduling: "lifo" }),
    "https:": new https.Agent({ keepAlive: true, scheduling: "lifo" }),
  };
  // What a URL alone decides is the same for every request to its origin: decided once per origin, not per call.
  const decisions = new Map<string, EgressDecision>();
  const decide = (url: URL): EgressDecision => {
    // Kept for http(s) origins only: a URL with credentials in it is refused whatever its origin (and is never a
    // key), and every other scheme has the origin "null".
    if (url.username || url.password || (url.protocol !== "http:" && url.protocol !== "https:"))
      return checkEgressUrl(policy, url);
    let decision = decisions.get(url.origin);
    if (!decision) {
      if (decisions.size >= MAX_DECISIONS) decisions.clear();
      decisions.set(url.origin, (decision = checkEgressUrl(policy, url)));
    }
    return decision;
  };
  const send = (url: URL, init: Omit<RequestInit, "body"> & { body?: PlainBody }) => {
    const decision = decide(url);
    if (!decision.allowed) return Promise.reject(new EgressRefusedError(decision.message));
    const lookup = egressLookup(policy, url.hostname, defaultPort(url), options.resolve);
    return nodeRequest(url, init, agents[url.protocol as keyof typeof agents], lookup);
  };

  return markSignalSafe(async (input, requestInit = {}) => {
    let url = typeof input === "string" ? safeUrl(input) : new URL(input.href);
    let init: Omit<RequestInit, "body" | "headers"> & { body?: PlainBody; headers: Record<string, string> } = {
      ...requestInit,
      ...(await normalise(requestInit)),
    };
    const mode = requestInit.redirect ?? "follow";
    for (let hop = 0; ; hop++) {
      const response = await send(url, init);
      const location = response.headers.get("location");
      if (!REDIRECTS.has(response.status) || !location || mode === "manual") return response;
      await response.body?.cancel().catch(() => {});
      if (mode === "error")
        throw new TypeError(
          `The server at ${url.origin} answered with a redirect, which this request does not follow.`,
        );
      if (hop >= MAX_REDIRECTS)
        throw new TypeError(`The server at ${url.origin} redirected more than ${MAX_REDIRECTS} times.`);
      const next = new URL(location, url);
      const headers = { ...init.headers };
      // As fetch does: 303 (and 301/302 after a POST) turn into a GET without a body; credentials stay on their origin.
      const toGet =
        response.status === 303 ||
        ((response.status === 301 || response.status === 302) && (init.method ?? "GET").toUpperCase() === "POST");
      if (toGet)
        for (const name of [
          "content-type",
          "content-length",
          "content-encoding",
          "content-language",
          "content-location",
        ])
          delete headers[name];
      if (next.origin !== url.origin) {
        delete headers.authorization;
        delete headers.cookie;
      }
      init = {
        ...init,
        headers,
        ...(toGet
          ? { method: response.status === 303 && init.method === "HEAD" ? "HEAD" : "GET", body: undefined }
          : {}),
      };
      url = next;
    }
  });
}

let strict: FetchLike | undefined;

/** The fetch of a transport given none: the default egress rules (public addresses only, no exceptions). */
export function strictEgressFetch(): FetchLike {
  strict ??= egressFetch(STRICT_EGRESS_POLICY);
  return strict;
}

function safeUrl(input: string): URL {
  try {
    return new URL(input);
  } catch {
    throw new EgressRefusedError("This server's URL is not a valid URL; use one like https://mcp.example.com/mcp.");
  }
}

/**
 * Headers as a plain record, and bodies other than strings and bytes (URLSearchParams of OAuth token requests,
 * streams) read whole, with the content type fetch would have derived from them unless one was given.
 */
async function normalise(init: RequestInit): Promise<{ body: PlainBody; headers: Record<string, string> }> {
  const headers = headerRecord(init.headers);
  if (isPlainBody(init.body)) return { body: init.body, headers };
  const read = new Response(init.body);
  const type = read.headers.get("content-type");
  if (type && !headers["content-type"]) headers["content-type"] = type;
  return { body: new Uint8Array(await read.arrayBuffer()), headers };
}
