import { createHash } from "node:crypto";
import { isTeamAdminRole } from "../accounts/roles";
import { canonicalJson } from "./index";

/**
 * Approvals: the one home of the rules a held tool call follows. The gateway holds a call whose decision is
 * `approval` (decision.ts) and asks the database for a grant; the console lists the requests and lets an approver
 * decide. Both read what a request binds to, how long it lives, who may decide it and what the caller is told here.
 *
 * A request binds to the caller, the installation's tool (upstream name), the SHA-256 of the exact arguments
 * ({@link approvalArgumentsHash}) and the policy version the call was held under. It lives
 * {@link APPROVAL_REQUEST_TTL_MS} while pending; an approver's decision gives it {@link APPROVAL_USE_WINDOW_MS}
 * more: an approval must be used within that window, once; a denial is told to the caller for that long, after
 * which calling again asks again.
 */

/** How long a pending request waits for an approver before it expires (1 hour). */
export const APPROVAL_REQUEST_TTL_MS = 60 * 60 * 1000;
/** How long after the decision an approval may be used, and a denial is told to the caller (15 minutes). */
export const APPROVAL_USE_WINDOW_MS = 15 * 60 * 1000;
/** The longest comment an approver may leave. */
export const APPROVAL_COMMENT_MAX = 500;

/** As stored (ToolApproval.state). */
export const APPROVAL_STORED_STATES = ["pending", "approved", "denied", "used"] as const;
export type ApprovalStoredState = (typeof APPROVAL_STORED_STATES)[number];
/** As shown: a pending or approved request past its expiry is expired. */
export type ApprovalState = ApprovalStoredState | "expired";

/** SHA-256 (hex) of the call's arguments in canonical JSON; no arguments hash as `{}`. */
export function approvalArgumentsHash(args: Record<string, unknown> | undefined | null): string {
  return createHash("sha256")
    .update(canonicalJson(args ?? {}))
    .digest("hex");
}

/** When a request made at `createdAt` expires if nobody decides it. */
export function approvalRequestExpiry(createdAt: Date): Date {
  return new Date(createdAt.getTime() + APPROVAL_REQUEST_TTL_MS);
}

/** The expiry a decision sets: an approval is used, and a denial told, until then. */
export function approvalDecisionExpiry(decidedAt: Date): Date {
  return new Date(decidedAt.getTime() + APPROVAL_USE_WINDOW_MS);
}

/** The state a request is in at `now`: pending and approved ones past `expiresAt` are expired. */
export function approvalState(request: { state: ApprovalStoredState; expiresAt: Date }, now: Date): ApprovalState {
  if ((request.state === "pending" || request.state === "approved") && request.expiresAt.getTime() <= now.getTime())
    return "expired";
  return request.state;
}

/** Only a pending, unexpired request can be approved or denied. */
export function isApprovalDecidable(request: { state: ApprovalStoredState; expiresAt: Date }, now: Date): boolean {
  return approvalState(request, now) === "pending";
}

/**
 * Who may decide a request: never its caller; the installation's named approvers when it names any, otherwise
 * the team's admins and owners.
 */
export function mayApprove(options: {
  approverIds: readonly string[];
  deciderId: string;
  deciderRole: string;
  callerId: string;
}): boolean {
  return approveProblem(options) === null;
}

/** Why `deciderId` may not decide the request, as a sentence for the console; null when they may. */
export function approveProblem(options: {
  approverIds: readonly string[];
  deciderId: string;
  deciderRole: string;
  callerId: string;
}): string | null {
  const { approverIds, deciderId, deciderRole, callerId } = options;
  if (deciderId === callerId) return "You cannot approve your own call; another approver has to decide it.";
  if (approverIds.length === 0)
    return isTeamAdminRole(deciderRole) ? null : "Only the team's admins can decide calls to this installation.";
  return approverIds.includes(deciderId) ? null : "Only the approvers this installation names can decide its calls.";
}

/** The console page where a request is decided (relative to the console's public URL). */
export function approvalPath(teamSlug: string, id: string): string {
  return `/t/${teamSlug}/approvals/${id}`;
}

/** The list of a team's requests. */
export function approvalsPath(teamSlug: string): string {
  return `/t/${teamSlug}/approvals`;
}

const askAt = (url: string | undefined): string => (url ? `at ${url}` : "in the Switchboard console");

/** A held call waiting for an approver. */
export function approvalPendingMessage(url?: string): string {
  return `This call needs an approver's approval: ask ${askAt(url)} and call again with the same arguments once it is approved.`;
}

/** A denied call; the approver's comment, when they left one, follows. */
export function approvalDeniedMessage(comment?: string | null): string {
  const said = comment?.trim().replace(/\s+/g, " ").slice(0, APPROVAL_COMMENT_MAX);
  return said ? `An approver denied this call: ${said}` : "An approver denied this call.";
}

/** A call whose earlier request expired (undecided, or approved but not used in time); a new request was made. */
export function approvalExpiredMessage(url?: string): string {
  return `The earlier request for this call expired before the call went through; a new request waits for an approver ${askAt(url)}, so call again once it is approved.`;
}

/** A call repeated after its approval was used once; a new request was made. */
export function approvalUsedMessage(url?: string): string {
  return `The approval of this call was already used once; a new request waits for an approver ${askAt(url)}, so call again once it is approved.`;
}

/**
 * The key a 2026-07-28 client answers the approval's URL elicitation under (an `input_required` result's
 * `inputRequests`): ours, never an upstream's, so the retry's answer to it is not passed on.
 */
const APPROVAL_INPUT_PREFIX = "switchboard-approval-";

export function approvalInputKey(elicitationId: string): string {
  return `${APPROVAL_INPUT_PREFIX}${elicitationId}`;
}

export function isApprovalInputKey(key: string): boolean {
  return key.startsWith(APPROVAL_INPUT_PREFIX);
}
