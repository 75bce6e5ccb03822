import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverCertificate } from "@switchboard/testing/certificates";
import { freePort } from "../src/net";

const run = promisify(execFile);
const FIXTURE = path.join(import.meta.dirname, "fixtures", "redis-tls-client.ts");

/**
 * A private Redis (Debian's redis-server, built with TLS) that speaks only TLS, with a certificate for `localhost`
 * signed by a certificate authority made for this run: `rediss://` through the runtime's factory, for commands and
 * for BullMQ, trusting that authority through NODE_EXTRA_CA_CERTS as an operator would.
 */
let dir: string;
let server: ChildProcess;
let port: number;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "sb-redis-tls-"));
  const tls = await serverCertificate(dir, { dns: "localhost" });
  port = await freePort();
  server = spawn(
    "redis-server",
    [
      "--port",
      "0",
      "--tls-port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--tls-cert-file",
      tls.cert,
      "--tls-key-file",
      tls.key,
      "--tls-ca-cert-file",
      tls.ca,
      "--tls-auth-clients",
      "no",
      "--save",
      "",
      "--appendonly",
      "no",
      "--dir",
      dir,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise<void>((resolve, reject) => {
    let out = "";
    server.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("Ready to accept connections")) resolve();
    });
    server.once("exit", (code) => reject(new Error(`redis-server exited (${code}): ${out}`)));
  });
}, 60_000);

afterAll(() => {
  server?.kill();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function connect(env: NodeJS.ProcessEnv): Promise<{ ping?: string; waiting?: number; error?: string }> {
  const { stdout } = await run(process.execPath, ["--import", "tsx", FIXTURE, `rediss://localhost:${port}`], {
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  return JSON.parse(stdout.trim().split("\n").at(-1)!);
}

describe("Redis over TLS (rediss://)", () => {
  it("runs commands and queues jobs through a TLS-only Redis whose authority the process trusts", async () => {
    expect(await connect({ NODE_EXTRA_CA_CERTS: path.join(dir, "ca.pem") })).toEqual({ ping: "PONG", waiting: 1 });
  }, 60_000);

  it("refuses a server whose certificate no trusted authority signed", async () => {
    const result = await connect({ NODE_EXTRA_CA_CERTS: "" });
    expect(result.error).toMatch(/self[- ]signed|unable to (get|verify)/i);
  }, 60_000);
});
