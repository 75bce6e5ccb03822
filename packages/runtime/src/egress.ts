import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { checkEgressUrl, type EgressPolicy } from "@switchboard/core/egress";
import { egressFetch } from "@switchboard/core/upstream";
import { env } from "./env";

/** The deployment's egress rules (EGRESS_ALLOW_PRIVATE, EGRESS_ALLOW), the same the worker applies. */
function egressPolicy(): EgressPolicy {
  const { EGRESS_ALLOW_PRIVATE, EGRESS_ALLOW } = env();
  return { allowPrivate: EGRESS_ALLOW_PRIVATE, allow: EGRESS_ALLOW };
}

let checked: FetchLike | undefined;

/**
 * The fetch for every request a configured URL leads to from this process: remote MCP servers on the route,
 * and the OAuth discovery, registration and token endpoints they name. The worker bridge is not one of them.
 */
export function upstreamEgressFetch(): FetchLike {
  checked ??= egressFetch(egressPolicy());
  return checked;
}

/**
 * The readable reason a remote server's URL is refused before anything connects, or null when it may be tried.
 * Besides the egress rules: Switchboard's own public address (a server that is the gateway itself would loop).
 */
export function urlRefusal(url: string): string | null {
  if (URL.canParse(url) && new URL(url).host === new URL(env().APP_URL).host) {
    return "This server's URL is Switchboard's own address; point it at the MCP server itself, not at the gateway.";
  }
  const decision = checkEgressUrl(egressPolicy(), url);
  return decision.allowed ? null : decision.message;
}
