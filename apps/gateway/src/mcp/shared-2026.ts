import { Mux2026 } from "@switchboard/core/proxy";
import { logger } from "@switchboard/runtime/logger";
import { CATALOGUE_TTL_MS } from "./catalogue-cache";
import type { MemberContext, MemberProxy } from "./member-proxy";

/**
 * The member proxies 2026-07-28 requests share. A request whose client answers nothing (no sampling, elicitation
 * or roots) and that continues no earlier call needs nothing of its own from its proxy: it is served by one the
 * member's other such requests use at the same time and just before, over a `Mux2026`, as a 2025-11-25 session
 * serves its requests. Building a member's proxy (its server, handlers and gates) and closing it again was most
 * of what a 2026 call cost more than a session's.
 *
 * What a request sees stays what a proxy built for it would see: a shared proxy is retired on any live event of
 * its member (the events that drop the member's catalogue cache) and once it is as old as that cache may be,
 * and closes when its last request is answered. Past `MAX_SHARED` proxies, requests get one of their own.
 */

/** Shared proxies kept at most (keys include the client's name, which the client chooses). */
export const MAX_SHARED = 1_000;

interface Shared {
  readonly key: string;
  readonly userId: string;
  readonly at: number;
  readonly mux: Mux2026;
  readonly built: Promise<MemberProxy>;
  /** Requests holding it. */
  users: number;
  retired: boolean;
}

const state: { shared: Map<string, Shared>; sweeper: NodeJS.Timeout | undefined } = {
  shared: new Map(),
  sweeper: undefined,
};

/** A shared proxy as one request holds it: released once the request is answered. */
export interface SharedLease {
  built: MemberProxy;
  mux: Mux2026;
  release(): Promise<void>;
}

async function close(entry: Shared): Promise<void> {
  const built = await entry.built.catch(() => undefined);
  await built?.close().catch((err: unknown) => logger.warn({ err }, "closing a shared 2026 proxy failed"));
}

function retire(entry: Shared): void {
  if (state.shared.get(entry.key) === entry) state.shared.delete(entry.key);
  if (entry.retired) return;
  entry.retired = true;
  if (entry.users === 0) void close(entry);
}

/** Retires the member's shared proxies: the next requests build new ones (called on each live event of theirs). */
export function retireShared(userId: string): void {
  for (const entry of state.shared.values()) if (entry.userId === userId) retire(entry);
}

function sweep(now = Date.now()): void {
  for (const entry of state.shared.values()) if (now - entry.at >= CATALOGUE_TTL_MS) retire(entry);
}

/**
 * The shared proxy for a member, client and kind of request (built with `build` and connected when there is
 * none), or undefined when `MAX_SHARED` are in use. `build`'s failure is the request's, as if it built its own.
 */
export async function shareProxy(
  member: MemberContext,
  kind: { client: string; tasks: boolean },
  build: () => Promise<MemberProxy>,
): Promise<SharedLease | undefined> {
  const key = JSON.stringify([
    member.tokenId,
    member.userId,
    member.teamId,
    member.mode,
    member.scope,
    member.toolset,
    kind.client,
    kind.tasks,
  ]);
  let entry = state.shared.get(key);
  if (entry && Date.now() - entry.at >= CATALOGUE_TTL_MS) retire(entry);
  entry = state.shared.get(key);
  if (!entry) {
    if (state.shared.size >= MAX_SHARED) return undefined;
    const mux = new Mux2026();
    const built = build().then(async (proxy) => {
      await proxy.proxy.server.connect(mux);
      return proxy;
    });
    const created: Shared = { key, userId: member.userId, at: Date.now(), mux, built, users: 0, retired: false };
    // A build that failed is not kept: the next request tries again.
    built.catch(() => retire(created));
    state.shared.set(key, created);
    state.sweeper ??= setInterval(sweep, CATALOGUE_TTL_MS / 3).unref();
    entry = created;
  }
  const held = entry;
  held.users++;
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    held.users--;
    if (held.retired && held.users === 0) await close(held);
  };
  try {
    return { built: await held.built, mux: held.mux, release };
  } catch (err) {
    await release();
    throw err;
  }
}

/** Shared proxies in this process (tests, metrics). */
export function sharedCount(): number {
  return state.shared.size;
}
