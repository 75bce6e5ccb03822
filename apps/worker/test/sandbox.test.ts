import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import net, { type AddressInfo } from "node:net";
import path from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { UpstreamConnection } from "@switchboard/core/upstream";
import { redisKeys } from "@switchboard/core/contracts";
import { SANDBOX_UID, sandboxStatusReportSchema } from "@switchboard/core/sandbox";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { changeSandboxLoopbackPorts } from "@switchboard/db/queries/deployment";
import { SANDBOX_UNAVAILABLE_MESSAGE, StdioSandbox } from "../src/sandbox";
import { unsafeReadOnlyPath } from "../src/sandbox/host";
import { makeInstance } from "./support/fixtures";
import { createHarness, FIXTURES_DIR, JOB_NAMES, type Harness } from "./support/harness";
import { processesWith, serverProcesses } from "@switchboard/testing/processes";

const db = getDb();
const ESCAPE = path.join(FIXTURES_DIR, "escape-server.mjs");
const REPO_ROOT = path.resolve(import.meta.dirname, "../../..");
const SECRET = randomBytes(24).toString("hex");
/** Stands for every secret in the worker's environment (DATABASE_URL, the encryption key, the bridge secret). */
const WORKER_SECRET = `worker-secret-${randomBytes(8).toString("hex")}`;
let h: Harness;
let bridgePort: number;

beforeAll(async () => {
  process.env.SB_TEST_WORKER_SECRET = WORKER_SECRET;
  h = await createHarness("sandbox", { bridge: { host: "127.0.0.1", port: 0, secret: SECRET } });
  bridgePort = Number(new URL(h.app.bridgeUrl!).port);
}, 60_000);
afterAll(async () => {
  delete process.env.SB_TEST_WORKER_SECRET;
  await h?.close();
  await disconnectDb();
});

/** An instance of the escape server under the given sandbox settings, connected (its process running). */
async function escapeServer(sandbox: Record<string, number | boolean | number[]> = {}) {
  const marker = `escape-${randomBytes(4).toString("hex")}`;
  const { instance, installation } = await makeInstance(db, {
    stdio: { command: process.execPath, args: [ESCAPE, marker] },
  });
  await db.installation.update({ where: { id: installation.id }, data: { sandbox } });
  const conn = await h.app.deps.connections.get(instance.id);
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = await conn.callTool({ name, arguments: args });
    const content = result.content as Array<{ type: string; text: string }>;
    return JSON.parse(content[0]!.text) as Record<string, unknown>;
  };
  return { instance, marker, conn: conn as UpstreamConnection, call };
}

/** Whether the worker itself can open a TCP connection there (so a refusal inside the sandbox means something). */
function hostConnects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe("stdio sandbox", () => {
  it("reports on Redis that stdio servers run sandboxed, with outbound network available", async () => {
    const raw = await h.redis.get(redisKeys.sandboxStatus(h.prefix));
    expect(sandboxStatusReportSchema.parse(JSON.parse(raw!))).toMatchObject({
      mode: "on",
      available: true,
      outbound: true,
    });
  });

  it("keeps the worker's environment, the project's files and the worker's process out of a server's reach", async () => {
    const { call } = await escapeServer();
    const env = await call("env");
    expect(JSON.stringify(env)).not.toContain(WORKER_SECRET);
    for (const key of [
      "DATABASE_URL",
      "SWITCHBOARD_ENCRYPTION_KEY",
      "BRIDGE_SECRET",
      "REDIS_URL",
      "SB_TEST_WORKER_SECRET",
    ]) {
      expect(env).not.toHaveProperty(key);
    }
    expect(env).toMatchObject({ HOME: "/home/sandbox", TMPDIR: "/tmp" });

    // PID 1 of its own namespace is the sandbox's init, with the sandbox's environment; the worker is not there.
    const init = await call("read", { path: "/proc/1/environ" });
    expect(init.ok).toBe(true);
    expect(init.text).not.toContain(WORKER_SECRET);
    expect(init.text).not.toContain("DATABASE_URL");
    expect(await call("read", { path: `/proc/${process.pid}/environ` })).toEqual({ ok: false, code: "ENOENT" });

    // Files the host has: the project's, its .env, the system's secrets.
    const projectFiles = [
      path.join(REPO_ROOT, "package.json"),
      path.join(REPO_ROOT, "apps/worker/src/env.ts"),
      "/etc/shadow",
    ];
    for (const file of projectFiles) {
      expect(existsSync(file)).toBe(true);
      expect(await call("read", { path: file })).toMatchObject({ ok: false });
    }
    expect(await call("read", { path: path.join(REPO_ROOT, ".env") })).toMatchObject({ ok: false });
    // The system is read-only; its home is writable.
    expect(await call("write", { path: "/usr/escaped", text: "x" })).toMatchObject({ ok: false });
    expect(await call("write", { path: "/home/sandbox/note", text: "x" })).toEqual({ ok: true });
  });

  it("gives each instance a private home and tmp that survive its restarts and that other instances cannot see", async () => {
    const a = await escapeServer();
    expect(await a.call("write", { path: "/home/sandbox/secret.txt", text: "only a" })).toEqual({ ok: true });
    expect(await a.call("write", { path: "/tmp/scratch.txt", text: "a's tmp" })).toEqual({ ok: true });
    const hostDir = h.sandbox.instanceDir(a.instance.id);

    await h.app.deps.connections.restart(a.instance.id);
    const again = await h.app.deps.connections.get(a.instance.id);
    const read = async (conn: UpstreamConnection, file: string) => {
      const result = await conn.callTool({ name: "read", arguments: { path: file } });
      return JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as Record<string, unknown>;
    };
    expect(await read(again, "/home/sandbox/secret.txt")).toEqual({ ok: true, text: "only a" });
    expect(await read(again, "/tmp/scratch.txt")).toEqual({ ok: true, text: "a's tmp" });

    const b = await escapeServer();
    expect(await b.call("read", { path: "/home/sandbox/secret.txt" })).toEqual({ ok: false, code: "ENOENT" });
    expect(await b.call("read", { path: "/tmp/scratch.txt" })).toEqual({ ok: false, code: "ENOENT" });
    const hostHome = h.sandbox.homeDir(a.instance.id);
    expect(existsSync(path.join(hostHome, "secret.txt"))).toBe(true);
    expect(await b.call("read", { path: path.join(hostHome, "secret.txt") })).toMatchObject({ ok: false });

    // Removal deletes the instance's files with it.
    await h.add(JOB_NAMES.installationRemoved, {
      installationId: a.instance.installationId,
      teamId: a.instance.teamId,
      instanceIds: [a.instance.id],
    });
    await expect.poll(() => existsSync(hostDir), { timeout: 10_000 }).toBe(false);
  });

  // As root every instance runs as a host user of its own (a worker that is not root runs them as itself, below).
  it.runIf(process.getuid?.() === 0)(
    "runs every instance as a host user of its own, kept with the instance, and hands it a home made under an earlier uid",
    async () => {
      const hostUid = (pid: number) => Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]);
      const uidOf = async (id: string) =>
        (await db.instance.findUniqueOrThrow({ where: { id }, select: { sandboxUid: true } })).sandboxUid;
      const a = await escapeServer();
      const b = await escapeServer();
      const [uidA, uidB] = [await uidOf(a.instance.id), await uidOf(b.instance.id)];
      expect(uidA).toBeGreaterThanOrEqual(200_000);
      expect(uidB).toBeGreaterThanOrEqual(200_000);
      expect(uidA).not.toBe(uidB);
      for (const { marker, uid } of [
        { marker: a.marker, uid: uidA },
        { marker: b.marker, uid: uidB },
      ]) {
        const servers = serverProcesses(marker);
        expect(servers.length).toBeGreaterThan(0);
        expect(servers.map(hostUid)).toEqual(servers.map(() => uid));
      }
      expect(statSync(h.sandbox.instanceDir(a.instance.id)).uid).toBe(uidA);
      // A restart keeps the instance's uid.
      await h.app.deps.connections.restart(a.instance.id);
      await h.app.deps.connections.get(a.instance.id);
      expect(await uidOf(a.instance.id)).toBe(uidA);
      expect(serverProcesses(a.marker).map(hostUid)).toContain(uidA);

      // An instance whose home an earlier version made under another uid finds its files readable, and its own.
      const marker = `escape-${randomBytes(4).toString("hex")}`;
      const { instance } = await makeInstance(db, { stdio: { command: process.execPath, args: [ESCAPE, marker] } });
      const home = path.join(h.sandbox.instanceDir(instance.id), "home");
      mkdirSync(path.join(home, "notes"), { recursive: true, mode: 0o700 });
      writeFileSync(path.join(home, "notes", "kept.txt"), "from before", { mode: 0o600 });
      const earlier = 123_456;
      for (const p of [
        h.sandbox.instanceDir(instance.id),
        home,
        path.join(home, "notes"),
        path.join(home, "notes", "kept.txt"),
      ])
        chownSync(p, earlier, earlier);
      const conn = await h.app.deps.connections.get(instance.id);
      const result = await conn.callTool({ name: "read", arguments: { path: "/home/sandbox/notes/kept.txt" } });
      expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual({
        ok: true,
        text: "from before",
      });
      const uid = await uidOf(instance.id);
      expect(statSync(path.join(h.sandbox.homeDir(instance.id), "notes", "kept.txt")).uid).toBe(uid);
    },
  );

  it("cannot reach PostgreSQL, Redis or the worker's bridge on the host's loopback", async () => {
    const { call } = await escapeServer();
    for (const [host, port] of [
      ["127.0.0.1", 5432],
      ["127.0.0.1", 6379],
      ["::1", 6379],
      ["127.0.0.1", bridgePort],
    ] as const) {
      expect(await hostConnects(host, port)).toBe(true);
      expect(await call("connect", { host, port })).toMatchObject({ ok: false });
    }
  });

  it("with outbound access allowed, reaches the host service the policy names and still none of the others", async () => {
    const accepted: number[] = [];
    const allowed = net.createServer((socket) => {
      accepted.push(socket.remotePort ?? 0);
      socket.end();
    });
    await new Promise<void>((resolve) => allowed.listen(0, "127.0.0.1", resolve));
    const port = (allowed.address() as AddressInfo).port;
    // A deployment owner allows it (sandbox-loopback.test.ts covers who may name which port).
    await changeSandboxLoopbackPorts(db, { userId: "test", change: (current) => [...current, port] });
    try {
      const { call } = await escapeServer({ outbound: true, loopbackPorts: [port] });
      expect(await call("connect", { host: "127.0.0.1", port })).toEqual({ ok: true });
      await expect.poll(() => accepted.length, { timeout: 5_000 }).toBe(1);
      for (const other of [5432, 6379, bridgePort]) {
        expect(await call("connect", { host: "127.0.0.1", port: other })).toMatchObject({ ok: false });
      }
    } finally {
      allowed.close();
    }
  });

  it("stops a fork bomb at the sandbox's process limit, and the worker is unharmed", async () => {
    const { instance, call } = await escapeServer({ processes: 48 });
    const forkMarker = `bomb-${randomBytes(4).toString("hex")}`;
    const bomb = await call("fork", { max: 2_000, marker: forkMarker });
    expect(bomb.code).toBe("EAGAIN");
    expect(bomb.spawned as number).toBeLessThan(48);
    // The server still answers, the worker still starts processes of its own, another server still starts.
    expect(await call("env")).toHaveProperty("HOME", "/home/sandbox");
    expect(execFileSync("sh", ["-c", "echo alive"], { encoding: "utf8" }).trim()).toBe("alive");
    const other = await escapeServer();
    expect(await other.call("env")).toHaveProperty("HOME", "/home/sandbox");
    // Stopping the instance takes every process of its sandbox with it.
    await h.app.deps.connections.stop(instance.id);
    await expect.poll(() => processesWith(forkMarker), { timeout: 10_000 }).toEqual([]);
  });

  it("refuses memory past the sandbox's limit, and the server keeps running", async () => {
    const { call } = await escapeServer({ memoryMb: 256 });
    const big = await call("allocate", { mb: 512 });
    expect(big).toMatchObject({ ok: false });
    expect(await call("allocate", { mb: 32 })).toEqual({ ok: true });
    expect(await call("env")).toHaveProperty("HOME", "/home/sandbox");
  });

  it.runIf(process.getuid?.() === 0)(
    "reports what each limit rests on: a cgroup, a file system per instance and the seccomp profile",
    () => {
      expect(h.sandbox.status.enforcement).toMatchObject({
        memory: { scope: "sandbox" },
        processes: { scope: "sandbox" },
        disk: { scope: "sandbox" },
        seccomp: { scope: "sandbox" },
      });
    },
  );

  it.runIf(process.getuid?.() === 0)(
    "refuses a 2 GiB write at the instance's disk quota, home and tmp together, and the server keeps running",
    async () => {
      const { instance, call } = await escapeServer({ diskMb: 128 });
      const limits = await call("read", { path: "/proc/self/limits" });
      expect(limits.text).toMatch(new RegExp(`Max file size\\s+${128 * 1024 * 1024}\\s`));
      // In files of 32 MB (under the file-size limit): what stops it is the quota, not RLIMIT_FSIZE.
      const home = await call("fill", { dir: "/home/sandbox", mb: 2_048, fileMb: 32 });
      expect(home.code).toBe("ENOSPC");
      expect(home.writtenMb).toBeLessThanOrEqual(128);
      expect(home.writtenMb).toBeGreaterThan(64);
      // tmp shares it: with 96 MB kept in home, tmp gets what is left.
      expect(await call("fill", { dir: "/home/sandbox", mb: 96, fileMb: 32 })).toMatchObject({ code: null });
      await call("write", { path: "/home/sandbox/keep", text: "x" });
      const tmp = await call("fill", { dir: "/tmp", mb: 2_048, fileMb: 32 });
      expect(tmp).toMatchObject({ code: "ENOSPC" });
      expect(tmp.writtenMb).toBeLessThanOrEqual(128);
      expect(await call("env")).toHaveProperty("HOME", "/home/sandbox");
      // On the host it is one image of the quota's size, not the host's free space.
      expect(statSync(path.join(h.sandbox.instanceDir(instance.id), "disk.img")).size).toBe(128 * 1024 * 1024);
    },
  );

  it.runIf(process.getuid?.() === 0)(
    "stops six children together at the sandbox's memory limit, not each at its own",
    async () => {
      const { call } = await escapeServer({ memoryMb: 256 });
      // Six children of 96 MB each: 576 MB in all, each well under the per-process limit (RLIMIT_DATA, 256 MB).
      const result = await call("children", { count: 6, mb: 96 });
      // The sandbox's cgroup holds them to 256 MB together (the server included): at most two keep theirs, the
      // kernel kills the others.
      expect(result.held as number).toBeLessThanOrEqual(2);
      expect(result.killed as number).toBeGreaterThanOrEqual(4);
      expect(await call("env")).toHaveProperty("HOME", "/home/sandbox");
    },
  );

  // System call numbers of x86_64.
  it.runIf(process.arch === "x64")(
    "denies system calls the seccomp profile refuses, while node servers run under it",
    async () => {
      const { call } = await escapeServer();
      // add_key (248) is not in the containers profile (its default answer: ENOSYS); userfaultfd (323) is refused
      // with EPERM. Without a filter both succeed in a sandbox.
      const perl =
        'my ($t, $d, $v) = ("user", "k", "v"); my $k = syscall(248, $t, $d, $v, 1, -3); print "add_key ", ($k < 0 ? $! + 0 : "ok"), "\\n";' +
        'my $u = syscall(323, 1); print "userfaultfd ", ($u < 0 ? $! + 0 : "ok"), "\\n";';
      const result = await call("exec", { command: "perl", args: ["-e", perl] });
      expect(result).toMatchObject({ status: 0 });
      expect(result.stdout).toBe("add_key 38\nuserfaultfd 1\n");
    },
    30_000,
  );

  it("shows the server no host path and no host uid, and a PATH of the sandbox's own", async () => {
    const { instance, call } = await escapeServer();
    const text = async (file: string) => {
      const result = await call("read", { path: file });
      expect(result).toMatchObject({ ok: true });
      return result.text as string;
    };
    const cmdline = (await text("/proc/1/cmdline")).split("\0");
    const mountinfo = await text("/proc/self/mountinfo");
    for (const seen of [cmdline.join(" "), mountinfo, await text("/proc/1/environ")]) {
      expect(seen).not.toContain(h.sandbox.dataDir);
      expect(seen).not.toContain(instance.id);
    }
    expect(cmdline.slice(0, 3)).toEqual(["/usr/bin/bwrap", "--args", "3"]);
    const { sandboxUid } = await db.instance.findUniqueOrThrow({ where: { id: instance.id } });
    // Its uid maps to bwrap's own namespace (0 there), not to the host user it runs as.
    expect(sandboxUid).not.toBeNull();
    for (const map of ["/proc/self/uid_map", "/proc/self/gid_map"]) {
      expect((await text(map)).trim().split(/\s+/).map(Number)).toEqual([SANDBOX_UID, 0, 1]);
    }
    const { PATH } = (await call("env")) as { PATH: string };
    expect(PATH).not.toBe(process.env.PATH);
    for (const dir of PATH.split(":"))
      expect(
        ["/usr/local/bin", "/usr/bin", "/bin", path.dirname(process.execPath)].includes(dir) ||
          dir.endsWith("/node_modules/.bin"),
        dir,
      ).toBe(true);
  });

  it("works for a worker that is not root: the server runs as that user and the process limit holds", () => {
    // Run as root, the tests check this as `nobody`; run as another user, as that user.
    const asUser =
      process.getuid?.() === 0 ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : [];
    const result = spawnSync(
      asUser[0] ?? process.execPath,
      [
        ...asUser.slice(1),
        ...(asUser.length ? [process.execPath] : []),
        "--import",
        "tsx",
        path.join(import.meta.dirname, "support/sandbox-probe.ts"),
      ],
      {
        cwd: path.resolve(import.meta.dirname, ".."),
        env: { PATH: process.env.PATH, HOME: "/tmp" },
        encoding: "utf8",
        timeout: 60_000,
      },
    );
    expect(result.status, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout.trim().split("\n").at(-1)!) as {
      workerUid: number;
      status: { available: boolean };
      identity: { status: number; stdout: string };
      bomb: { status: number; stdout: string; stderr: string };
    };
    expect(report.workerUid).not.toBe(0);
    expect(report.status.available).toBe(true);
    const [uid, processes] = report.identity.stdout.trim().split("\n").map(Number);
    expect(uid).toBe(SANDBOX_UID); // its own uid inside; the host's (the worker's) shows nowhere there
    expect(processes).toBeLessThan(5); // its own init, sh, ls, grep: nothing of the host
    expect(report.bomb.stdout).not.toContain("survived");
    expect(report.bomb.stderr).toMatch(/fork/i);
  });

  it("refuses stdio servers with a readable reason when the sandbox cannot start on the host", async () => {
    const broken = await StdioSandbox.start({
      mode: "on",
      dataDir: h.sandbox.dataDir,
      logger: pino({ level: "silent" }),
      tools: { bwrap: "/bin/false" }, // a bwrap that cannot create namespaces, as on a host without user namespaces
    });
    expect(broken.status).toMatchObject({ mode: "on", available: false });
    // A worker of its own (own queue prefix): the working one above must not take the job.
    const refusing = await createHarness("sandbox-refused", { sandbox: broken });
    try {
      const marker = `refused-${randomBytes(4).toString("hex")}`;
      const { instance } = await makeInstance(db, { stdio: { command: process.execPath, args: [ESCAPE, marker] } });
      await refusing.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });
      await expect
        .poll(async () => (await db.instance.findUniqueOrThrow({ where: { id: instance.id } })).status, {
          timeout: 30_000,
        })
        .toBe("error");
      const row = await db.instance.findUniqueOrThrow({ where: { id: instance.id } });
      expect(row.statusMessage).toBe(SANDBOX_UNAVAILABLE_MESSAGE);
      expect(processesWith(marker)).toEqual([]);
      const raw = await refusing.redis.get(redisKeys.sandboxStatus(refusing.prefix));
      expect(JSON.parse(raw!)).toMatchObject({ mode: "on", available: false, reason: SANDBOX_UNAVAILABLE_MESSAGE });
    } finally {
      await refusing.close();
    }
  });
});

describe("read-only paths an operator configures", () => {
  it("refuses the project directory, a directory holding a .env and the file system root, and accepts node_modules", () => {
    expect(unsafeReadOnlyPath(REPO_ROOT, "/")).toMatch(/code|working directory|\.env/);
    expect(unsafeReadOnlyPath(path.dirname(REPO_ROOT), "/")).toMatch(/code/);
    expect(unsafeReadOnlyPath("/", "/")).toMatch(/whole file system/);
    const withEnv = mkdtempSync(path.join(os.tmpdir(), "sb-env-"));
    try {
      writeFileSync(path.join(withEnv, ".env"), "SECRET=1\n");
      expect(unsafeReadOnlyPath(withEnv, "/")).toMatch(/\.env/);
    } finally {
      rmSync(withEnv, { recursive: true, force: true });
    }
    expect(unsafeReadOnlyPath(path.join(REPO_ROOT, "node_modules"), REPO_ROOT)).toBeUndefined();
    expect(unsafeReadOnlyPath(FIXTURES_DIR, path.join(REPO_ROOT, "apps/worker"))).toBeUndefined();
  });
});
