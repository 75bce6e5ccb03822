/**
 * Which services on the host's loopback (127.0.0.1) a sandbox with outbound access may reach.
 *
 * The ports are named by the operator (the worker's STDIO_SANDBOX_LOOPBACK_PORTS) or by a deployment owner (the
 * deployment's settings), never by a team: a team admin may only pick, per installation, among the ports the
 * deployment allows. The ports of Switchboard's own services (PostgreSQL, Redis, the worker's bridge, the
 * gateway and its console) are refused whoever asks, when saving and again at every launch.
 */

/** A port no sandbox may reach, with the service it belongs to (shown to whoever asked for it). */
export interface ReservedPort {
  port: number;
  service: string;
}

/** PostgreSQL's and Redis's default ports: refused even when this deployment's own services listen elsewhere. */
export const WELL_KNOWN_RESERVED_PORTS: readonly ReservedPort[] = [
  { port: 5432, service: "PostgreSQL (its default port)" },
  { port: 6379, service: "Redis (its default port)" },
];

/** The port a service URL names, else the scheme's default; undefined when the URL does not parse. */
export function portOfUrl(url: string, defaultPort: number): number | undefined {
  try {
    const port = new URL(url).port;
    return port === "" ? defaultPort : Number(port);
  } catch {
    return undefined;
  }
}

/**
 * The reserved ports of this process's view of the deployment (from its parsed environment), the well-known
 * defaults included; one entry per port. A port of 0 (picked at run time) is left out: pass the actual one.
 */
export function reservedLoopbackPorts(env: {
  databaseUrl?: string;
  redisUrl?: string;
  bridgePorts?: readonly (number | undefined)[];
  consolePorts?: readonly (number | undefined)[];
}): ReservedPort[] {
  const found: Array<{ port: number | undefined; service: string }> = [
    { port: env.databaseUrl ? portOfUrl(env.databaseUrl, 5432) : undefined, service: "PostgreSQL (DATABASE_URL)" },
    { port: env.redisUrl ? portOfUrl(env.redisUrl, 6379) : undefined, service: "Redis (REDIS_URL)" },
    ...(env.bridgePorts ?? []).map((port) => ({ port, service: "the worker's stdio bridge" })),
    ...(env.consolePorts ?? []).map((port) => ({ port, service: "the gateway and its console" })),
    ...WELL_KNOWN_RESERVED_PORTS,
  ];
  return mergeReserved(found.filter((r): r is ReservedPort => r.port !== undefined && r.port > 0));
}

/** Several processes' reserved ports as one list (the first service named for a port wins), by port. */
export function mergeReserved(...lists: ReadonlyArray<readonly ReservedPort[]>): ReservedPort[] {
  const byPort = new Map<number, ReservedPort>();
  for (const r of lists.flat()) if (!byPort.has(r.port)) byPort.set(r.port, { port: r.port, service: r.service });
  return [...byPort.values()].sort((a, b) => a.port - b.port);
}

/** What the operator and the deployment owners allow: every port either names, less the reserved ones. */
export function allowedLoopbackPorts(
  named: ReadonlyArray<readonly number[]>,
  reserved: readonly ReservedPort[],
): number[] {
  const refused = new Set(reserved.map((r) => r.port));
  return [...new Set(named.flat())].filter((p) => !refused.has(p)).sort((a, b) => a - b);
}

export interface LoopbackRefusal {
  port: number;
  /** One sentence for the person who asked for it (or the log line of a launch that dropped it). */
  reason: string;
}

export function reservedPortReason(r: ReservedPort): string {
  return `Port ${r.port} belongs to ${r.service}: Switchboard's own services are never reachable from a sandbox, whoever asks.`;
}

export function notAllowedPortReason(port: number): string {
  return `Port ${port} is not among the host services this deployment lets sandboxes reach; a deployment owner can add it on the Deployment settings page.`;
}

/**
 * The ports of `requested` a sandbox gets: those the deployment allows (`allowed`, as the operator and the
 * deployment owners named them), never a reserved one. The rest come back with the reason each was refused.
 */
export function grantLoopbackPorts(
  requested: readonly number[],
  rule: { allowed: readonly number[]; reserved: readonly ReservedPort[] },
): { ports: number[]; refused: LoopbackRefusal[] } {
  const ports: number[] = [];
  const refused: LoopbackRefusal[] = [];
  for (const port of [...new Set(requested)].sort((a, b) => a - b)) {
    const reserved = rule.reserved.find((r) => r.port === port);
    if (reserved) refused.push({ port, reason: reservedPortReason(reserved) });
    else if (!rule.allowed.includes(port)) refused.push({ port, reason: notAllowedPortReason(port) });
    else ports.push(port);
  }
  return { ports, refused };
}

/** A list of ports as an operator or an owner writes it ("8080, 9090" or "8080 9090"), or the entry that is not one. */
export function parsePortList(text: string): { ports: number[] } | { invalid: string } {
  const ports: number[] = [];
  for (const entry of text.split(/[\s,]+/).filter(Boolean)) {
    const port = /^\d{1,5}$/.test(entry) ? Number(entry) : NaN;
    if (!(port >= 1 && port <= 65_535)) return { invalid: entry };
    if (!ports.includes(port)) ports.push(port);
  }
  return { ports: ports.sort((a, b) => a - b) };
}
