import ipaddr from "ipaddr.js";

/**
 * What an IP address reaches, as far as a gateway deciding where it may connect cares:
 * - `public`: the internet;
 * - `private`: the deployment's own networks (RFC 1918, CGNAT, IPv6 unique-local), allowed when the operator says so;
 * - everything else is never a place a configured URL should reach: this host itself (`loopback`, `unspecified`),
 *   the link (`link_local`), the cloud provider's instance metadata (`metadata`), `multicast`, `broadcast`, and
 *   `reserved` ranges (documentation, benchmarking, IPv4 class E, IPv6 transition formats we cannot vouch for).
 */
export type AddressKind =
  | "public"
  | "private"
  | "loopback"
  | "unspecified"
  | "link_local"
  | "metadata"
  | "multicast"
  | "broadcast"
  | "reserved";

export interface AddressClass {
  kind: AddressKind;
  /** The address in canonical form (IPv4-mapped IPv6 becomes IPv4), as shown to people. */
  address: string;
}

/**
 * Instance metadata services: AWS/GCP/Azure/OpenStack (169.254.169.254), AWS over IPv6 (fd00:ec2::254), AWS ECS
 * task metadata (169.254.170.2), Alibaba Cloud (100.100.100.200), Oracle Cloud (192.0.0.192). Some sit in ranges
 * an operator may allow (fd00::/8 is unique-local, 100.64/10 is CGNAT): they stay refused even then.
 */
const METADATA = new Set(["169.254.169.254", "169.254.170.2", "100.100.100.200", "192.0.0.192", "fd00:ec2::254"]);

type Parsed = ipaddr.IPv4 | ipaddr.IPv6;

const V4_KIND: Partial<Record<string, AddressKind>> = {
  unicast: "public",
  unspecified: "unspecified",
  broadcast: "broadcast",
  multicast: "multicast",
  linkLocal: "link_local",
  loopback: "loopback",
  private: "private",
  carrierGradeNat: "private",
};

const V6_KIND: Partial<Record<string, AddressKind>> = {
  unicast: "public",
  unspecified: "unspecified",
  linkLocal: "link_local",
  multicast: "multicast",
  loopback: "loopback",
  uniqueLocal: "private",
};

/** IPv6 forms that carry an IPv4 address in their last 32 bits: judge the IPv4 address they lead to. */
const EMBEDS_V4 = new Set(["ipv4Mapped", "rfc6145", "rfc6052"]);

/** IPv4-compatible IPv6 (::a.b.c.d, deprecated): no range in ipaddr.js, but it must not smuggle 127.0.0.1 in. */
const V4_COMPATIBLE = ipaddr.IPv6.parseCIDR("::/96");

function parse(address: string): Parsed | undefined {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const withoutZone = bare.split("%")[0]!;
  // Only canonical dotted quads: "127.1" or "0x7f.1" are for the WHATWG URL parser to normalise, not for us.
  if (ipaddr.IPv4.isValidFourPartDecimal(withoutZone)) return ipaddr.IPv4.parse(withoutZone);
  if (ipaddr.IPv6.isValid(withoutZone)) return ipaddr.IPv6.parse(withoutZone);
  return undefined;
}

/** True for an IP literal (IPv4 dotted quad, IPv6 with or without brackets). */
export function isIpAddress(host: string): boolean {
  return parse(host) !== undefined;
}

/** Canonical text of an IP literal (IPv4-mapped IPv6 as IPv4), or undefined when `host` is not one. */
export function canonicalAddress(host: string): string | undefined {
  const ip = parse(host);
  if (!ip) return undefined;
  return unwrap(ip).toString();
}

function unwrap(ip: Parsed): Parsed {
  if (ip.kind() === "ipv6") {
    const v6 = ip as ipaddr.IPv6;
    if (EMBEDS_V4.has(v6.range()))
      return ipaddr.IPv4.parse(
        v6.parts
          .slice(6)
          .flatMap((p) => [p >> 8, p & 0xff])
          .join("."),
      );
  }
  return ip;
}

/** Classifies an IP literal; undefined when `address` is not one. */
export function classifyAddress(address: string): AddressClass | undefined {
  const parsed = parse(address);
  if (!parsed) return undefined;
  const ip = unwrap(parsed);
  const text = ip.toString();
  if (METADATA.has(text)) return { kind: "metadata", address: text };
  if (ip.kind() === "ipv4") return { kind: V4_KIND[(ip as ipaddr.IPv4).range()] ?? "reserved", address: text };
  const v6 = ip as ipaddr.IPv6;
  const range = v6.range();
  if (range === "unicast" && v6.match(V4_COMPATIBLE)) return { kind: "reserved", address: text };
  return { kind: V6_KIND[range] ?? "reserved", address: text };
}
