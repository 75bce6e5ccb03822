import { describe, expect, it } from "vitest";
import {
  allowedLoopbackPorts,
  grantLoopbackPorts,
  parsePortList,
  reservedLoopbackPorts,
  WELL_KNOWN_RESERVED_PORTS,
} from "../src/sandbox";

const ports = (list: ReadonlyArray<{ port: number }>) => list.map((r) => r.port);

describe("host loopback ports of a sandbox", () => {
  it("reserves the ports of the deployment's PostgreSQL, Redis, bridge and console, and the well-known defaults", () => {
    const reserved = reservedLoopbackPorts({
      databaseUrl: "postgresql://switchboard:pw@127.0.0.1:5433/switchboard",
      redisUrl: "redis://127.0.0.1:6380/0",
      bridgePorts: [7411],
      consolePorts: [8443, 0],
    });
    expect(ports(reserved)).toEqual([5432, 5433, 6379, 6380, 7411, 8443]);
    expect(reserved.find((r) => r.port === 5433)?.service).toBe("PostgreSQL (DATABASE_URL)");
    // Without a port in the URL, the service's default; an unreadable URL still leaves the defaults reserved.
    expect(ports(reservedLoopbackPorts({ databaseUrl: "postgresql://db/x", redisUrl: "redis://cache" }))).toEqual([
      5432, 6379,
    ]);
    expect(ports(reservedLoopbackPorts({ databaseUrl: "postgresql://h1:5432,h2:5433/x" }))).toEqual(
      ports(WELL_KNOWN_RESERVED_PORTS),
    );
  });

  it("grants only ports the deployment allows and never a reserved one, saying why for each refused", () => {
    const reserved = reservedLoopbackPorts({ bridgePorts: [7410], consolePorts: [3000] });
    const allowed = allowedLoopbackPorts([[8080, 5432], [9090]], reserved);
    expect(allowed).toEqual([8080, 9090]);
    const { ports: granted, refused } = grantLoopbackPorts([9090, 5432, 8080, 4000, 7410, 8080], {
      allowed: [...allowed, 5432],
      reserved,
    });
    expect(granted).toEqual([8080, 9090]);
    expect(refused).toEqual([
      { port: 4000, reason: expect.stringMatching(/^Port 4000 is not among the host services/) },
      { port: 5432, reason: expect.stringMatching(/^Port 5432 belongs to PostgreSQL.*never reachable from a sandbox/) },
      { port: 7410, reason: expect.stringMatching(/^Port 7410 belongs to the worker's stdio bridge/) },
    ]);
  });

  it("reads a list of ports as an operator writes it, and names the entry that is not one", () => {
    expect(parsePortList("")).toEqual({ ports: [] });
    expect(parsePortList(" 9090, 8080 8080,")).toEqual({ ports: [8080, 9090] });
    expect(parsePortList("8080,70000")).toEqual({ invalid: "70000" });
    expect(parsePortList("8080,http")).toEqual({ invalid: "http" });
    expect(parsePortList("0")).toEqual({ invalid: "0" });
  });
});
