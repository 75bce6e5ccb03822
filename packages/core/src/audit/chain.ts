import { createHash } from "node:crypto";

/**
 * The audit trail's hash chain: each record holds the hash of the one before it in its chain (one chain per team,
 * one for the deployment), so editing, inserting or deleting a record in the middle breaks every link after it.
 * This file is the one home of the chain's arithmetic: the database layer stores what it computes, the verify
 * command and the console's button call `verifyAuditChain`.
 */

/** The `prevHash` of a chain's first record. */
export const AUDIT_GENESIS_HASH = "0".repeat(64);

/** The chain a record belongs to: its team's, or the deployment's own for records outside any team. */
export function auditChainKey(teamId: string | null | undefined): string {
  return teamId ? `team:${teamId}` : "deployment";
}

/** The fields a record's hash covers: everything it says, in a form that survives a round trip through JSON. */
export interface AuditHashedFields {
  chain: string;
  seq: number;
  teamId: string | null;
  actorId: string | null;
  actorLabel: string;
  action: string;
  targetType: string | null;
  targetId: string | null;
  targetLabel: string | null;
  before: unknown;
  after: unknown;
  detail: unknown;
  ip: string | null;
  client: string | null;
  /** ISO 8601 with milliseconds, as stored. */
  createdAt: string;
}

/**
 * JSON with object keys sorted at every depth, so that the same record hashes the same whatever order its JSON
 * columns come back in (PostgreSQL's jsonb reorders keys). `undefined` members are left out, as JSON.stringify does.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(",")}]`;
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  const entries = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(",")}}`;
}

/** SHA-256 (hex) of the previous record's hash and this record's canonical form. */
export function auditRecordHash(prevHash: string, fields: AuditHashedFields): string {
  return createHash("sha256").update(prevHash).update("\n").update(canonicalJson(fields)).digest("hex");
}

/** A stored record, as the verifier reads it. */
export interface AuditStoredRecord extends AuditHashedFields {
  id: string;
  prevHash: string;
  hash: string;
}

/** Where a pruned chain now starts: the last pruned record's sequence number and hash. */
export interface AuditAnchor {
  seq: number;
  hash: string;
}

export type AuditBreakReason = "edited" | "missing" | "relinked";

export interface AuditBreak {
  /** The first record whose link does not hold. */
  id: string;
  seq: number;
  reason: AuditBreakReason;
}

/** What each reason means, in one sentence, for the console and the verify command. */
export const AUDIT_BREAK_MESSAGES: Record<AuditBreakReason, string> = {
  edited: "its content no longer matches its hash: the record was changed after it was written",
  missing: "the record before it is missing: a record was deleted or the sequence was changed",
  relinked: "it does not point at the hash of the record before it: records were replaced or reordered",
};

/**
 * Walks a chain in order, page by page (`records` in ascending `seq`, continuing where the previous page ended:
 * pass the state returned by the previous call). Returns the first broken link, or null while the chain holds.
 */
export class AuditChainVerifier {
  private expectedSeq: number;
  private expectedPrev: string;
  checked = 0;

  constructor(anchor: AuditAnchor | null) {
    this.expectedSeq = anchor ? anchor.seq + 1 : 1;
    this.expectedPrev = anchor ? anchor.hash : AUDIT_GENESIS_HASH;
  }

  /** The first broken link in this page, or null. */
  check(records: readonly AuditStoredRecord[]): AuditBreak | null {
    for (const record of records) {
      if (record.seq !== this.expectedSeq) return { id: record.id, seq: record.seq, reason: "missing" };
      if (record.prevHash !== this.expectedPrev) return { id: record.id, seq: record.seq, reason: "relinked" };
      const { id: _id, prevHash, hash, ...fields } = record;
      if (auditRecordHash(prevHash, fields) !== hash) return { id: record.id, seq: record.seq, reason: "edited" };
      this.expectedSeq += 1;
      this.expectedPrev = hash;
      this.checked += 1;
    }
    return null;
  }
}

/** Verifies a whole chain held in memory (tests, small chains). */
export function verifyAuditChain(
  records: readonly AuditStoredRecord[],
  anchor: AuditAnchor | null = null,
): AuditBreak | null {
  return new AuditChainVerifier(anchor).check(records);
}
