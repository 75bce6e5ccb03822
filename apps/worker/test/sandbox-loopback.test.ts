import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net, { type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { changeSandboxLoopbackPorts } from "@switchboard/db/queries/deployment";
import { StdioSandbox } from "../src/sandbox";
import { findHostTools } from "../src/sandbox/host";
import { makeInstance } from "./support/fixtures";
import { createHarness, FIXTURES_DIR, type Harness } from "./support/harness";
import { processesWith } from "@switchboard/testing/processes";

const db = getDb();
const ESCAPE = path.join(FIXTURES_DIR, "escape-server.mjs");
const SECRET = randomBytes(24).toString("hex");

/** What the sandbox logs (JSON lines), to read the reason a launch gives for a port it dropped. */
const logLines: Array<Record<string, unknown>> = [];
const logger = pino(
  { level: "warn" },
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  }),
);

let h: Harness;
let sandbox: StdioSandbox;
let bridgePort: number;
/** Ports the operator allows sandboxes (STDIO_SANDBOX_LOOPBACK_PORTS), PostgreSQL's default among them. */
let operatorPort: number;
const listeners: net.Server[] = [];

/** A TCP listener on the host's loopback that counts the connections it accepts. */
async function listener(): Promise<{ port: number; accepted: () => number }> {
  let accepted = 0;
  const server = net.createServer((socket) => {
    accepted += 1;
    socket.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  listeners.push(server);
  return { port: (server.address() as AddressInfo).port, accepted: () => accepted };
}

/** Whether the worker itself can open a TCP connection there (so a refusal inside the sandbox means something). */
function hostConnects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** An instance of the escape server under these sandbox settings, connected (its process running). */
async function escapeServer(sandbox: Record<string, unknown>) {
  const { instance, installation } = await makeInstance(db, {
    stdio: { command: process.execPath, args: [ESCAPE, `loopback-${randomBytes(4).toString("hex")}`] },
  });
  await db.installation.update({ where: { id: installation.id }, data: { sandbox: sandbox as never } });
  const conn = await h.app.deps.connections.get(instance.id);
  return {
    instanceId: instance.id,
    connect: async (port: number) => {
      const result = await conn.callTool({ name: "connect", arguments: { host: "127.0.0.1", port } });
      return JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as { ok: boolean };
    },
  };
}

/** Adds ports to the deployment owners' list as the console would store them (or an older version did). */
const allowByDeployment = (ports: number[]) =>
  changeSandboxLoopbackPorts(db, { userId: "test", change: (current) => [...current, ...ports] });
const takeBack = (ports: number[]) =>
  changeSandboxLoopbackPorts(db, { userId: "test", change: (current) => current.filter((p) => !ports.includes(p)) });

beforeAll(async () => {
  operatorPort = (await listener()).port;
  sandbox = await StdioSandbox.start({
    mode: "on",
    dataDir: mkdtempSync(path.join(os.tmpdir(), "sb-loopback-")),
    readOnlyPaths: [FIXTURES_DIR],
    logger,
    loopback: { operatorPorts: [operatorPort, 5432] },
  });
  h = await createHarness("loopback", { sandbox, bridge: { host: "127.0.0.1", port: 0, secret: SECRET } });
  bridgePort = Number(new URL(h.app.bridgeUrl!).port);
}, 60_000);

afterAll(async () => {
  for (const server of listeners) server.close();
  await h?.close();
  if (sandbox) rmSync(sandbox.dataDir, { recursive: true, force: true });
  await disconnectDb();
});

describe("host loopback ports of a sandbox", () => {
  it("ignores an operator's port that belongs to Switchboard's own services, saying why", () => {
    expect(sandbox.loopback.operatorPorts).toEqual([operatorPort]);
    expect(logLines).toContainEqual(
      expect.objectContaining({
        port: 5432,
        msg: expect.stringMatching(/5432 ignored\. Port 5432 belongs to PostgreSQL/),
      }),
    );
  });

  it("reaches a service on a port the deployment owners or the operator allow, and none on a port the team named alone", async () => {
    const [byOwner, byTeamAlone] = [await listener(), await listener()];
    await allowByDeployment([byOwner.port]);
    try {
      const server = await escapeServer({
        outbound: true,
        loopbackPorts: [byOwner.port, operatorPort, byTeamAlone.port],
      });
      expect(await server.connect(byOwner.port)).toEqual({ ok: true });
      await expect.poll(() => byOwner.accepted(), { timeout: 5_000 }).toBe(1);
      expect(await server.connect(operatorPort)).toEqual({ ok: true });

      expect(await hostConnects(byTeamAlone.port)).toBe(true);
      const before = byTeamAlone.accepted(); // the host's own check above
      expect(await server.connect(byTeamAlone.port)).toMatchObject({ ok: false });
      expect(byTeamAlone.accepted()).toBe(before);
      expect(logLines).toContainEqual(
        expect.objectContaining({
          instanceId: server.instanceId,
          port: byTeamAlone.port,
          msg: expect.stringMatching(/not among the host services this deployment lets sandboxes reach/),
        }),
      );
    } finally {
      await takeBack([byOwner.port]);
    }
  });

  it("drops PostgreSQL's, Redis's and the bridge's ports at launch even when stored lists from before name them", async () => {
    const own = [5432, 6379, bridgePort];
    // Stored before the console refused them, in the installation and in the deployment's list alike.
    await allowByDeployment(own);
    try {
      const server = await escapeServer({ outbound: true, loopbackPorts: own });
      for (const port of own) {
        expect(await hostConnects(port)).toBe(true);
        expect(await server.connect(port)).toMatchObject({ ok: false });
        expect(logLines).toContainEqual(
          expect.objectContaining({
            instanceId: server.instanceId,
            port,
            msg: expect.stringMatching(new RegExp(`Port ${port} belongs to .*never reachable from a sandbox`)),
          }),
        );
      }
    } finally {
      await takeBack(own);
    }
  });
});

describe("the start-up probe on a host where /dev/net/tun is not usable", () => {
  it("leaves no pasta or bwrap process behind, and reports outbound access unavailable", async () => {
    const pasta = findHostTools().pasta;
    expect(pasta).toBeDefined();
    // The real pasta, in a mount namespace of its own where /dev/net/tun is /dev/null: it fails to open its
    // tap device after forking the child that would run the sandbox, as on a host without a usable tun.
    const dir = mkdtempSync(path.join(os.tmpdir(), "sb-notun-"));
    chmodSync(dir, 0o755);
    const wrapper = path.join(dir, "pasta");
    writeFileSync(
      wrapper,
      `#!/bin/sh\nexec unshare --user --map-root-user --mount sh -c 'mount --bind /dev/null /dev/net/tun && exec ${pasta} "$@"' pasta "$@"\n`,
    );
    chmodSync(wrapper, 0o755);
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "sb-probe-orphans-"));
    try {
      const probed = await StdioSandbox.start({
        mode: "on",
        dataDir,
        logger: pino({ level: "silent" }),
        tools: { pasta: wrapper },
      });
      expect(probed.status).toMatchObject({ available: true, outbound: false });
      // Every process of the probes names their sandbox directory (pasta's and bwrap's command lines do).
      await expect.poll(() => processesWith(dataDir), { timeout: 5_000 }).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
