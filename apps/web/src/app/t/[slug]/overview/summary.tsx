"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { needsAttention, statusLabelFor, statusTone, type InstanceStatus } from "@switchboard/core/status";
import { ConfirmButton } from "~/components/confirm-button";
import { RetryInfo } from "~/components/console/retry-info";
import { useToast } from "~/components/ui/toast";
import { errorMessage } from "~/lib/errors";
import type { RouterOutputs } from "~/trpc/types";
import { useTRPC } from "~/trpc/react";

type Overview = RouterOutputs["instance"]["overview"];

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

/**
 * Instances by status (each a filter), then the ones that need someone: who, what, and the admin's bulk actions.
 * "Needs attention" follows the status filter, like every list below it: an admin who picks "Failing" to work
 * through it wants those instances with their next step, not the stopped ones that outrank them. The heading
 * names the filter and offers the way back to every status, so the narrowed list is never taken for the whole.
 */
export function OverviewSummary({
  teamId,
  slug,
  data,
  status,
  onStatus,
}: {
  teamId: string;
  slug: string;
  data: Overview;
  status: string;
  onStatus: (s: string) => void;
}) {
  // Expanded for one filter: another filter starts with its most urgent few again.
  const [expandedFor, setExpandedFor] = useState<string | null>(null);
  const showAll = expandedFor === status;
  const filtered = status ? data.attention.filter((a) => a.status === status) : data.attention;
  const count = status
    ? needsAttention(status)
      ? (data.totals[status as InstanceStatus] ?? 0)
      : 0
    : data.attentionCount;
  const filterLabel = status ? statusLabelFor(status as InstanceStatus, { own: !data.isAdmin }) : "";
  const attention = showAll ? filtered : filtered.slice(0, 8);
  return (
    <>
      <section className="card stack" aria-labelledby="summary-heading" data-testid="overview-summary">
        <h2 id="summary-heading">Summary</h2>
        {data.statuses.length > 0 && (
          <ul className="status-counts" aria-label="Instances by status">
            {data.statuses.map((s) => {
              const tone = statusTone(s);
              return (
                <li key={s}>
                  <button
                    type="button"
                    className={`status-chip ${tone === "muted" ? "" : tone}`}
                    aria-pressed={status === s}
                    onClick={() => onStatus(status === s ? "" : s)}
                    data-testid={`count-${s}`}
                  >
                    <strong>{(data.totals[s] ?? 0).toLocaleString()}</strong>{" "}
                    {statusLabelFor(s, { own: !data.isAdmin })}
                  </button>
                </li>
              );
            })}
          </ul>
        )}
      </section>
      <section className="card stack" aria-labelledby="attention-heading" data-testid="needs-attention">
        <div className="row" style={{ justifyContent: "space-between" }}>
          <h2 id="attention-heading" style={{ margin: 0 }}>
            Needs attention{status ? `: ${filterLabel}` : ""} ({count.toLocaleString()})
          </h2>
          {data.isAdmin && <BulkActions teamId={teamId} failing={data.failingCount} stopped={data.stoppedCount} />}
        </div>
        {status && (
          <p className="muted small" style={{ margin: 0 }} data-testid="attention-filter">
            Only “{filterLabel}”, as the status filter asks
            {data.attentionCount > count
              ? `; ${(data.attentionCount - count).toLocaleString()} more in other statuses need attention`
              : ""}
            .{" "}
            <button type="button" className="link" onClick={() => onStatus("")}>
              Show every status
            </button>
          </p>
        )}
        {filtered.length === 0 ? (
          <p className="muted" style={{ margin: 0 }}>
            {status
              ? needsAttention(status)
                ? `No instance is “${filterLabel}” right now.`
                : `“${filterLabel}” instances need no one.`
              : "Nothing needs anyone right now."}
          </p>
        ) : (
          <ul className="attention-list">
            {attention.map((a) => {
              const tone = statusTone(a.status);
              return (
                <li key={a.instanceId} data-testid="attention-item">
                  <span className={`badge ${tone === "muted" ? "warning" : tone}`} data-status={a.status}>
                    {a.label}
                  </span>
                  <span className="attention-what">
                    <Link href={`/t/${slug}/installations/${a.installation.id}?instance=${a.instanceId}`}>
                      {a.installation.name}
                    </Link>
                    {data.isAdmin && <> for {a.own ? "you" : a.user.name}</>}
                  </span>
                  {a.nextStep && <span className="attention-next">{a.nextStep}</span>}
                  {a.statusMessage && <span className="muted small attention-message">{a.statusMessage}</span>}
                  {(a.status === "offline" || a.status === "error") && (
                    <RetryInfo attempt={a.reconnectAttempt} nextRetryAt={a.nextRetryAt} />
                  )}
                </li>
              );
            })}
          </ul>
        )}
        {filtered.length > 8 && (
          <div>
            <button
              type="button"
              className="secondary small"
              aria-expanded={showAll}
              onClick={() => setExpandedFor(showAll ? null : status)}
            >
              {showAll ? "Show fewer" : `Show all ${filtered.length}`}
            </button>
            {count > filtered.length && (
              <span className="muted small">
                {" "}
                (the {filtered.length} most urgent of {count})
              </span>
            )}
          </div>
        )}
      </section>
    </>
  );
}

function BulkActions({ teamId, failing, stopped }: { teamId: string; failing: number; stopped: number }) {
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const done = (verb: string) => (r: { count: number }) => {
    toast(
      r.count === 0
        ? `Nothing to ${verb}: the instances recovered meanwhile.`
        : `Asked ${plural(r.count, "instance")} to ${verb}. Their progress shows here live.`,
    );
    void queryClient.invalidateQueries(trpc.instance.pathFilter());
  };
  const failed = (e: unknown) => toast(errorMessage(e), "danger");
  const reconnect = useMutation(
    trpc.ops.reconnectFailing.mutationOptions({ onSuccess: done("reconnect"), onError: failed }),
  );
  const restart = useMutation(trpc.ops.restartStopped.mutationOptions({ onSuccess: done("restart"), onError: failed }));
  return (
    <div className="row">
      <ConfirmButton
        label={`Reconnect all failing (${failing})`}
        title={`Reconnect ${plural(failing, "failing instance")}?`}
        body={`${plural(failing, "instance")} that ${failing === 1 ? "is" : "are"} offline or in error will try to connect now instead of waiting for the next retry. Healthy instances are not touched.`}
        confirmLabel={`Reconnect ${plural(failing, "instance")}`}
        tone="primary"
        disabled={failing === 0 || reconnect.isPending}
        onConfirm={() => reconnect.mutate({ teamId })}
      />
      <ConfirmButton
        label={`Restart all stopped (${stopped})`}
        title={`Restart ${plural(stopped, "stopped instance")}?`}
        body={`${plural(stopped, "instance")} stopped after repeated crashes will start again with a clean crash history. If the cause is not fixed, ${stopped === 1 ? "it" : "they"} will stop again.`}
        confirmLabel={`Restart ${plural(stopped, "instance")}`}
        disabled={stopped === 0 || restart.isPending}
        onConfirm={() => restart.mutate({ teamId })}
      />
    </div>
  );
}
