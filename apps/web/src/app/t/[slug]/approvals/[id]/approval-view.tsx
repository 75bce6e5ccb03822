"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useState } from "react";
import {
  APPROVAL_COMMENT_MAX,
  APPROVAL_USE_WINDOW_MS,
  approvalDecisionExpiry,
  approvalsPath,
} from "@switchboard/core/governance";
import { ConfirmButton } from "~/components/confirm-button";
import {
  ApprovalStateBadge,
  APPROVALS_POLL_MS,
  personLabel,
  useApprovalsLive,
} from "~/components/console/approval-parts";
import { useNow } from "~/components/console/use-now";
import { useTRPC } from "~/trpc/react";
import { FormError } from "~/components/ui/form-error";

function countdown(until: Date, now: number): string {
  const s = Math.max(0, Math.floor((until.getTime() - now) / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return h > 0 ? `${h} h ${m} min` : m > 0 ? `${m} min ${String(sec).padStart(2, "0")} s` : `${sec} s`;
}

/**
 * One held call: who asks, which server and tool, the exact arguments, why it needs approval and how long it
 * waits; Approve and Deny (with a comment) for its approvers, its status for the caller, and who can approve
 * for anyone else.
 */
export function ApprovalView({ teamId, slug, approvalId }: { teamId: string; slug: string; approvalId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  useApprovalsLive(teamId);
  const query = useQuery({
    ...trpc.approvals.get.queryOptions({ teamId, approvalId }),
    staleTime: 2_000,
    refetchInterval: APPROVALS_POLL_MS,
  });
  const open = query.data?.status === "pending" || query.data?.status === "approved";
  const now = useNow(open);
  const decide = useMutation(
    trpc.approvals.decide.mutationOptions({
      onSuccess: (data) => {
        queryClient.setQueryData(trpc.approvals.get.queryKey({ teamId, approvalId }), data);
        void queryClient.invalidateQueries(trpc.approvals.pathFilter());
      },
      // Somebody else may have decided meanwhile: show what is true now.
      onError: () => void queryClient.invalidateQueries(trpc.approvals.get.pathFilter()),
    }),
  );
  const [comment, setComment] = useState("");
  const commentId = useId();
  const headingId = useId();

  if (query.isPending)
    return (
      <div className="card stack" aria-busy="true">
        <div className="skeleton" />
        <div className="skeleton" />
      </div>
    );
  if (query.isError)
    return <FormError error={query.error} prefix="Could not load this request: " className="error card" />;
  const a = query.data;
  const caller = a.caller.name || a.caller.email;
  const expired = now !== null && a.expiresAt.getTime() <= now;
  const status = a.status === "pending" || a.status === "approved" ? (expired ? "expired" : a.status) : a.status;
  const decider = a.decidedBy ? personLabel(a.decidedBy) : null;
  // Read from the clock only after hydration (useNow): the server's and the browser's would differ (#418).
  const runBy = now === null ? null : approvalDecisionExpiry(new Date(now));

  return (
    <div className="stack">
      <p>
        <Link href={approvalsPath(slug)}>← All approvals</Link>
      </p>
      <section className="card stack" aria-labelledby={headingId} data-testid="approval" data-state={status}>
        <div className="row" style={{ justifyContent: "space-between" }}>
          <h1 id={headingId} style={{ margin: 0 }}>
            {a.mine ? "Your call" : `${caller} asks`} to run <code>{a.tool}</code> on {a.installation.name}
          </h1>
          <ApprovalStateBadge state={status} />
        </div>

        <dl className="request-facts">
          <dt>Caller</dt>
          <dd data-testid="approval-caller">{personLabel(a.caller)}</dd>
          <dt>Server</dt>
          <dd>
            {a.installation.name} <span className="muted small">({a.installation.slug})</span>
          </dd>
          <dt>Tool</dt>
          <dd>
            <code>{a.tool}</code>
            {a.requested !== a.tool && (
              <span className="muted small">
                {" "}
                (called as <code>{a.requested}</code>)
              </span>
            )}
          </dd>
          <dt>Why it needs approval</dt>
          <dd data-testid="approval-reason">
            {a.reason}
            <div className="muted small">
              {a.policyId ? `Policy ${a.policyId}, ` : "The server's approval settings, "}version {a.policyVersion}
            </div>
          </dd>
          <dt>Asked</dt>
          <dd>
            <time suppressHydrationWarning dateTime={a.createdAt.toISOString()}>
              {a.createdAt.toLocaleString()}
            </time>
          </dd>
          {status === "pending" && (
            <>
              <dt>Expires</dt>
              <dd>
                <time suppressHydrationWarning dateTime={a.expiresAt.toISOString()}>
                  {a.expiresAt.toLocaleString()}
                </time>
                {now !== null && (
                  <span className="muted" role="timer" aria-live="off" data-testid="approval-countdown">
                    {" "}
                    (in {countdown(a.expiresAt, now)})
                  </span>
                )}
              </dd>
            </>
          )}
        </dl>

        <div className="stack">
          <h2 style={{ margin: 0 }}>Arguments</h2>
          {a.arguments === null ? (
            <p className="muted">Only the caller and the approvers of this server see the arguments.</p>
          ) : (
            <pre
              className="block"
              role="region"
              aria-label="The call's exact arguments"
              data-testid="approval-arguments"
              style={{ maxHeight: 480, overflowY: "auto" }}
              tabIndex={0}
            >
              {JSON.stringify(a.arguments, null, 2)}
            </pre>
          )}
        </div>

        <Outcome a={a} status={status} caller={caller} decider={decider} />

        {status === "pending" && a.canDecide && (
          <form className="stack" aria-label="Decide" onSubmit={(e) => e.preventDefault()}>
            <label htmlFor={commentId}>
              Comment (optional; the caller reads it)
              <textarea
                id={commentId}
                value={comment}
                onChange={(e) => setComment(e.target.value)}
                rows={2}
                maxLength={APPROVAL_COMMENT_MAX}
              />
            </label>
            <FormError error={decide.error} />
            <div className="row" style={{ gap: 8 }}>
              <ConfirmButton
                label={decide.isPending ? "Saving…" : "Approve"}
                triggerClassName=""
                tone="primary"
                title={`Approve ${caller}'s call to ${a.tool}?`}
                body={`The call runs once, with these arguments, if ${caller} retries it ${runBy ? `before ${runBy.toLocaleTimeString()} ` : ""}(within ${APPROVAL_USE_WINDOW_MS / 60_000} minutes).`}
                confirmLabel="Approve the call"
                disabled={decide.isPending}
                onConfirm={() => decide.mutate({ teamId, approvalId, decision: "approved", comment: comment || null })}
              />
              <ConfirmButton
                label="Deny"
                triggerClassName="danger"
                title={`Deny ${caller}'s call to ${a.tool}?`}
                body={`The call does not run; ${caller} is told an approver denied it${comment.trim() ? `, with your comment` : ""}.`}
                confirmLabel="Deny the call"
                disabled={decide.isPending}
                onConfirm={() => decide.mutate({ teamId, approvalId, decision: "denied", comment: comment || null })}
              />
            </div>
          </form>
        )}
        {status === "pending" && !a.canDecide && !a.mine && (
          <p className="muted" data-testid="approval-who">
            {a.whoMayApprove}
          </p>
        )}
      </section>
    </div>
  );
}

type Approval = {
  mine: boolean;
  comment: string | null;
  decidedAt: Date | null;
  usedAt: Date | null;
  expiresAt: Date;
  whoMayApprove: string;
};

/** What happened, or what happens next, in one or two sentences for whoever reads the page. */
function Outcome({
  a,
  status,
  caller,
  decider,
}: {
  a: Approval;
  status: string;
  caller: string;
  decider: string | null;
}) {
  const said = a.comment ? <blockquote data-testid="approval-comment">{a.comment}</blockquote> : null;
  const when = (d: Date | null) =>
    d ? (
      <time suppressHydrationWarning dateTime={d.toISOString()}>
        {d.toLocaleString()}
      </time>
    ) : null;
  switch (status) {
    case "pending":
      return a.mine ? (
        <p role="status" data-testid="approval-outcome">
          Your call waits for an approver. {a.whoMayApprove} Once it is approved, call the tool again with the same
          arguments.
        </p>
      ) : null;
    case "approved":
      return (
        <div role="status" data-testid="approval-outcome">
          <p>
            Approved by {decider} at {when(a.decidedAt)}.{" "}
            {a.mine ? "Call the tool again with the same arguments" : `It runs once if ${caller} calls it again`} before{" "}
            {when(a.expiresAt)}.
          </p>
          {said}
        </div>
      );
    case "used":
      return (
        <div role="status" data-testid="approval-outcome">
          <p>
            Approved by {decider} at {when(a.decidedAt)}; the call ran at {when(a.usedAt)}. The approval is used up: the
            same call again needs a new approval.
          </p>
          {said}
        </div>
      );
    case "denied":
      return (
        <div role="status" data-testid="approval-outcome">
          <p>
            Denied by {decider} at {when(a.decidedAt)}. The call did not run.
          </p>
          {said}
        </div>
      );
    default:
      return (
        <p role="status" data-testid="approval-outcome">
          {a.decidedAt
            ? "The approval expired before the call was made again; calling again asks anew."
            : "Nobody decided this request in time; calling the tool again asks anew."}
        </p>
      );
  }
}
