import { canonicalAddress, classifyAddress, type AddressKind } from "./address";

/** One named exception: a host (name or IP) and a port, or every port of that host with `"*"`. */
export interface EgressException {
  host: string;
  port: number | "*";
}

/**
 * Where configured URLs (remote MCP servers, the OAuth endpoints they name) may lead. Public addresses always;
 * private networks when `allowPrivate`; anything else (loopback, link-local, metadata...) only through an
 * exception naming the URL's host and port as written in the URL (a host name, or an IP literal).
 */
export interface EgressPolicy {
  allowPrivate: boolean;
  allow: readonly EgressException[];
}

/** The default of every deployment: public addresses only, no exceptions. */
export const STRICT_EGRESS_POLICY: EgressPolicy = Object.freeze({ allowPrivate: false, allow: Object.freeze([]) });

export type EgressDecision = { allowed: true } | { allowed: false; message: string };

const REASONS: Record<Exclude<AddressKind, "public">, string> = {
  private: "on a private network",
  loopback: "on this host's loopback network",
  unspecified: "an address for this host itself",
  link_local: "a link-local address",
  metadata: "a cloud instance-metadata address",
  multicast: "a multicast address",
  broadcast: "a broadcast address",
  reserved: "in a reserved address range",
};

/** A host as compared with exceptions: IP literals canonical (bracketless), names lower-case without a final dot. */
export function normaliseHost(host: string): string {
  return canonicalAddress(host) ?? host.toLowerCase().replace(/\.$/, "");
}

/** `host` + `port` as an operator would write it in the exception list (IPv6 in brackets). */
export function hostPort(host: string, port: number): string {
  const h = normaliseHost(host);
  return `${h.includes(":") ? `[${h}]` : h}:${port}`;
}

/**
 * Parses a comma-separated exception list (`EGRESS_ALLOW`): `host:port` or `host:*`, IPv6 in brackets
 * (`[::1]:8080`). Throws an Error naming the entry that is not one.
 */
export function parseEgressAllow(list: string | undefined): EgressException[] {
  if (!list?.trim()) return [];
  return list
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const match = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5}|\*)$/.exec(entry);
      const port = match?.[2] === "*" ? "*" : Number(match?.[2]);
      if (!match || (port !== "*" && (port < 1 || port > 65535))) {
        throw new Error(`"${entry}" is not host:port (e.g. 127.0.0.1:3001, [::1]:8080 or mcp.internal:*)`);
      }
      return { host: normaliseHost(match[1]!), port };
    });
}

function excepted(policy: EgressPolicy, host: string, port: number): boolean {
  const h = normaliseHost(host);
  return policy.allow.some((e) => normaliseHost(e.host) === h && (e.port === "*" || e.port === port));
}

/**
 * Decides whether a connection to `address` (an IP the URL's host resolved to, or the literal in the URL) may
 * be opened for a URL naming `host` and `port`. The message is one sentence for whoever configured the URL.
 */
export function checkEgressAddress(
  policy: EgressPolicy,
  target: { host: string; port: number; address: string },
): EgressDecision {
  if (excepted(policy, target.host, target.port)) return { allowed: true };
  const found = classifyAddress(target.address);
  if (!found)
    return {
      allowed: false,
      message: `This server's address ${target.host} did not resolve to an IP address Switchboard can check, so it does not connect to it.`,
    };
  if (found.kind === "public" || (found.kind === "private" && policy.allowPrivate)) return { allowed: true };
  const host = normaliseHost(target.host);
  const shown = host === found.address ? found.address : `${host} (${found.address})`;
  const remedy =
    found.kind === "private"
      ? `An operator can allow private networks with EGRESS_ALLOW_PRIVATE, or this one server by adding ${hostPort(target.host, target.port)} to EGRESS_ALLOW.`
      : `An operator can allow it by adding ${hostPort(target.host, target.port)} to EGRESS_ALLOW.`;
  return {
    allowed: false,
    message: `This server's address ${shown} is ${REASONS[found.kind]}, which Switchboard does not connect to. ${remedy}`,
  };
}
