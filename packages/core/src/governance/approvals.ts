/**
 * PROVISIONAL (wip/approvalui): stands in for the engine helper's packages/core/src/governance/approvals.ts until it
 * lands; replaced by that file verbatim.
 */
import { isTeamAdminRole } from "../accounts";

/** How long a held call waits for a decision. */
export const APPROVAL_PENDING_TTL_MS = 60 * 60 * 1000;
/** How long an approved call may be retried (once) after the decision. */
export const APPROVAL_USE_WITHIN_MS = 15 * 60 * 1000;

/** Who may decide a held call: the named approvers (or, none named, the team's admins), never its caller. */
export function mayApprove(input: {
  approverIds: readonly string[];
  deciderId: string;
  deciderRole: string;
  callerId: string;
}): boolean {
  if (input.deciderId === input.callerId) return false;
  return input.approverIds.length > 0
    ? input.approverIds.includes(input.deciderId)
    : isTeamAdminRole(input.deciderRole);
}

/** The console page where a held call is decided. */
export function approvalPath(teamSlug: string, id: string): string {
  return `/t/${encodeURIComponent(teamSlug)}/approvals/${encodeURIComponent(id)}`;
}
