import { randomInt } from "node:crypto";
import { accessSync, chmodSync, constants, lchownSync, mkdirSync, readdirSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/* The sandboxes' place on the host's file system: the data directory, paths other users cannot pass, owners, uids. */

/**
 * When the worker is root, each sandbox runs as a uid of its own, which must be able to reach every read-only
 * path (bubblewrap mounts them as that user): the first directory on the way that other users cannot pass, if any.
 */
export function closedToOthers(target: string): string | undefined {
  const chain: string[] = [];
  for (let dir = path.resolve(target); ; dir = path.dirname(dir)) {
    chain.push(dir);
    if (dir === path.dirname(dir)) break;
  }
  for (const dir of chain.reverse()) {
    let mode: number;
    try {
      mode = statSync(dir).mode;
    } catch {
      return undefined; // a path that does not exist is skipped by bubblewrap (--ro-bind-try)
    }
    if ((mode & 0o001) === 0) return dir;
  }
  return undefined;
}

export function closedPathMessage(target: string, closed: string): string {
  return (
    `Stdio servers are disabled on this host: the sandbox runs each server as its own user, which cannot reach ${target} ` +
    `because ${closed} is closed to other users. An operator can run the worker as a non-root user, or open the ` +
    `directories on the way for passing through (chmod o+x ${closed}).`
  );
}

/**
 * The host uids sandboxes run as when the worker is root (never root, never a system or login user). An instance
 * keeps the one the database gave it (`allocateSandboxUid` with `pickSandboxUid`): unique among instances, so no
 * two share a host user. Throwaway sandboxes (a connection test, the start-up probe) take one of a range of their
 * own, unique among those this worker has open.
 */
const INSTANCE_UIDS = { base: 200_000, span: 800_000 } as const;
export const THROWAWAY_UIDS = { base: 1_000_000, span: 100_000 } as const;

/** A candidate uid for an instance (the database's unique index decides whether it is free). */
export function pickSandboxUid(): number {
  return INSTANCE_UIDS.base + randomInt(INSTANCE_UIDS.span);
}

/** Gives a tree to its new owner (a home made under an earlier uid): links themselves, never what they point to. */
export function chownTree(dir: string, uid: number, gid: number): void {
  lchownSync(dir, uid, gid);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const child = path.join(dir, entry.name);
    if (entry.isDirectory()) chownTree(child, uid, gid);
    else lchownSync(child, uid, gid);
  }
}

/** The configured directory, else /var/lib/switchboard/sandboxes, else one under the OS temp dir. */
export function prepareDataDir(configured: string | undefined): string {
  const candidates = configured ? [configured] : ["/var/lib/switchboard/sandboxes"];
  for (const dir of candidates) {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o711 });
      accessSync(dir, constants.W_OK);
      allowTraversal(dir);
      return dir;
    } catch {
      if (configured)
        throw new Error(
          `STDIO_SANDBOX_DIR ${configured} cannot be created or written: point it at a directory the worker's user can write.`,
        );
    }
  }
  const fallback = path.join(os.tmpdir(), `switchboard-sandboxes-${process.getuid?.() ?? "user"}`);
  mkdirSync(fallback, { recursive: true, mode: 0o711 });
  allowTraversal(fallback);
  return fallback;
}

/** Sandboxes running as their own uid must pass through the directory to their home, without listing it. */
function allowTraversal(dir: string): void {
  if (statSync(dir).uid === process.getuid?.()) chmodSync(dir, 0o711);
}
