import { describe, expect, it } from "vitest";
import { parseWorkerEnv } from "../src/env";

const base = {
  DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/x",
  SWITCHBOARD_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString("base64"),
};

describe("the worker's database variables", () => {
  it("refuse a malformed encryption key when the environment is parsed, saying what is wrong with it", () => {
    expect(() => parseWorkerEnv({ ...base, SWITCHBOARD_ENCRYPTION_KEY: "k" })).toThrow(
      "SWITCHBOARD_ENCRYPTION_KEY: SWITCHBOARD_ENCRYPTION_KEY must be 32 bytes, as 64 hex characters or base64 (got 0 bytes).",
    );
    expect(() => parseWorkerEnv({ ...base, SWITCHBOARD_ENCRYPTION_KEY: undefined })).toThrow(
      "SWITCHBOARD_ENCRYPTION_KEY: SWITCHBOARD_ENCRYPTION_KEY is not set",
    );
    expect(parseWorkerEnv({ ...base, SWITCHBOARD_ENCRYPTION_KEY: "ab".repeat(32) }).SWITCHBOARD_ENCRYPTION_KEY).toBe(
      "ab".repeat(32),
    );
  });
});

describe("the worker's egress settings", () => {
  it("default to public addresses only, with no exceptions", () => {
    expect(parseWorkerEnv(base)).toMatchObject({ EGRESS_ALLOW_PRIVATE: false, EGRESS_ALLOW: [] });
  });

  it("read private networks and host:port exceptions", () => {
    const env = parseWorkerEnv({ ...base, EGRESS_ALLOW_PRIVATE: "true", EGRESS_ALLOW: "127.0.0.1:3001, [::1]:8080" });
    expect(env.EGRESS_ALLOW_PRIVATE).toBe(true);
    expect(env.EGRESS_ALLOW).toEqual([
      { host: "127.0.0.1", port: 3001 },
      { host: "::1", port: 8080 },
    ]);
  });

  it("refuse to start on an entry that is not host:port, naming it", () => {
    expect(() => parseWorkerEnv({ ...base, EGRESS_ALLOW: "127.0.0.1" })).toThrow(
      'EGRESS_ALLOW: "127.0.0.1" is not host:port (e.g. 127.0.0.1:3001, [::1]:8080 or mcp.internal:*)',
    );
    expect(() => parseWorkerEnv({ ...base, EGRESS_ALLOW_PRIVATE: "yes" })).toThrow(
      'EGRESS_ALLOW_PRIVATE must be "true" or "false"',
    );
  });
});

describe("the worker's sandbox loopback ports", () => {
  it("default to none, read a comma-separated list, and refuse to start on an entry that is not a port", () => {
    expect(parseWorkerEnv(base)).toMatchObject({ STDIO_SANDBOX_LOOPBACK_PORTS: [], PORT: 3000 });
    expect(
      parseWorkerEnv({ ...base, STDIO_SANDBOX_LOOPBACK_PORTS: "9090, 8080" }).STDIO_SANDBOX_LOOPBACK_PORTS,
    ).toEqual([8080, 9090]);
    expect(() => parseWorkerEnv({ ...base, STDIO_SANDBOX_LOOPBACK_PORTS: "8080,redis" })).toThrow(
      "STDIO_SANDBOX_LOOPBACK_PORTS: redis is not a port (1-65535)",
    );
  });
});
