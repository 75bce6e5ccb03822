import type { Db } from "@switchboard/db/client";
import { loadMemberCatalogue, type MemberCatalogueEntry } from "@switchboard/db/queries/member-catalogue";
import { onMemberEvent } from "@switchboard/runtime/live-events";

/**
 * Per-process cache of a member's catalogue (one query per member and team instead of one per MCP request).
 * Correctness does not depend on it: every live event of the member (published by the worker through Redis to
 * every gateway process) drops the member's entries, and entries expire after a short TTL as a safety net.
 */
const TTL_MS = 15_000;
/** How long a member's catalogue read by this process may be stale at most (what 2026-07-28 lists' `ttlMs` say). */
export const CATALOGUE_TTL_MS = TTL_MS;

interface Entry {
  at: number;
  value: Promise<MemberCatalogueEntry[]>;
}

const state: { entries: Map<string, Entry>; watched: Map<string, () => void> } = {
  entries: new Map(),
  watched: new Map(),
};

function invalidateMember(userId: string) {
  for (const key of state.entries.keys()) if (key.startsWith(`${userId}|`)) state.entries.delete(key);
}

export function memberCatalogue(
  db: Db,
  input: { userId: string; teamId: string; installationSlug?: string },
): Promise<MemberCatalogueEntry[]> {
  if (!state.watched.has(input.userId))
    state.watched.set(
      input.userId,
      onMemberEvent(input.userId, () => invalidateMember(input.userId)),
    );
  const key = `${input.userId}|${input.teamId}|${input.installationSlug ?? ""}`;
  const hit = state.entries.get(key);
  if (hit && Date.now() - hit.at < TTL_MS) return hit.value;
  const value = loadMemberCatalogue(db, input);
  state.entries.set(key, { at: Date.now(), value });
  value.catch(() => state.entries.delete(key));
  return value;
}

export { invalidateMember as invalidateMemberCatalogue };
