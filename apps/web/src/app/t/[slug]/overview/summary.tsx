"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import {
  compareAttention,
  isRetrying,
  needsAttention,
  statusLabelFor,
  statusTone,
  type InstanceStatus,
} from "@switchboard/core/status";
import { ConfirmButton } from "~/components/confirm-button";
import type { ActionOutcome, ActionVerb, Tracking } from "~/components/console/action-outcome";
import { InstanceActions } from "~/components/console/instance-actions";
import { RetryInfo } from "~/components/console/retry-info";
import { useToast } from "~/components/ui/toast";
import { errorMessage } from "~/lib/errors";
import type { RouterOutputs } from "~/trpc/types";
import { useTRPC } from "~/trpc/react";

type Overview = RouterOutputs["instance"]["overview"];
type Item = Overview["attention"][number];
/** An item being reconnected or restarted from this list, as it was listed when the action started. */
type Held = { item: Item; tracking?: Tracking };

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

/**
 * Instances by status (each a filter), then the ones that need someone: who, what, and the admin's bulk actions.
 * "Needs attention" follows the status filter, like every list below it: an admin who picks "Failing" to work
 * through it wants those instances with their next step, not the stopped ones that outrank them. The heading
 * names the filter and offers the way back to every status, so the narrowed list is never taken for the whole.
 *
 * Each item has its Reconnect or Restart. An item being acted on (alone or by a bulk action) keeps its place and
 * stays counted while its attempt runs, though the server no longer lists it (connecting needs no one): the
 * list and its count change only when an attempt ends, back online (the item leaves, saying so) or failing again.
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
  const [held, setHeld] = useState<Record<string, Held>>({});
  const [recovered, setRecovered] = useState("");
  const listed = new Set(data.attention.map((a) => a.instanceId));
  // Ordered and filtered by the status an item had when the action started: in flight, it stays where it was.
  const asListed = (a: Item) => held[a.instanceId]?.item ?? a;
  const inFlightOnly = Object.values(held)
    .map((h) => h.item)
    .filter((a) => !listed.has(a.instanceId));
  const filtered = [...data.attention, ...inFlightOnly]
    .filter((a) => !status || asListed(a).status === status)
    .sort((a, b) => compareAttention(asListed(a), asListed(b)));
  const count =
    (status ? (needsAttention(status) ? (data.totals[status as InstanceStatus] ?? 0) : 0) : data.attentionCount) +
    inFlightOnly.filter((a) => !status || a.status === status).length;
  const filterLabel = status ? statusLabelFor(status as InstanceStatus, { own: !data.isAdmin }) : "";
  const attention = showAll ? filtered : filtered.slice(0, 8);
  const who = (a: Item) => `${a.installation.name} for ${a.own ? "you" : a.user.name}`;
  const release = (ids: string[]) =>
    setHeld((h) => Object.fromEntries(Object.entries(h).filter(([id]) => !ids.includes(id))));
  const hold = (item: Item) => {
    setHeld((h) => ({ ...h, [item.instanceId]: { item } }));
    return () => release([item.instanceId]);
  };
  const settled = (item: Item) => (_id: string, outcome: ActionOutcome) => {
    // Failing again, the server lists it again; back online, it leaves the list and says so.
    if (outcome.phase !== "online") return;
    release([item.instanceId]);
    setRecovered(`${who(item)} is back online.`);
  };
  // A bulk action holds the items on screen it concerns; the others are counted as the server counts them.
  const bulk = (verb: ActionVerb) => {
    const concerned = attention.filter((a) =>
      verb === "reconnect" ? isRetrying(a.status) : a.status === "permanently_failed",
    );
    setHeld((h) => ({
      ...h,
      ...Object.fromEntries(
        concerned.map((item) => [
          item.instanceId,
          { item, tracking: { verb, baseline: { status: item.status, statusChangedAt: item.statusChangedAt } } },
        ]),
      ),
    }));
    return () => release(concerned.map((a) => a.instanceId));
  };
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
          {data.isAdmin && (
            <BulkActions teamId={teamId} failing={data.failingCount} stopped={data.stoppedCount} onStart={bulk} />
          )}
        </div>
        <p className="small ok-text" role="status" data-testid="attention-outcome" style={{ margin: 0 }}>
          {recovered}
        </p>
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
              const running = !listed.has(a.instanceId);
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
                  {a.nextStep && !running && <span className="attention-next">{a.nextStep}</span>}
                  {a.statusMessage && !running && (
                    <span className="muted small attention-message">{a.statusMessage}</span>
                  )}
                  {isRetrying(a.status) && !running && (
                    <RetryInfo attempt={a.reconnectAttempt} nextRetryAt={a.nextRetryAt} />
                  )}
                  <InstanceActions
                    teamId={teamId}
                    instanceId={a.instanceId}
                    status={a.status}
                    label={who(a)}
                    canRestart={data.isAdmin}
                    tracking={held[a.instanceId]?.tracking}
                    onStart={() => hold(a)}
                    onOutcome={settled(a)}
                  />
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

function BulkActions({
  teamId,
  failing,
  stopped,
  onStart,
}: {
  teamId: string;
  failing: number;
  stopped: number;
  /** Called as the action is sent; answers how to undo what it did if the server refuses. */
  onStart: (verb: ActionVerb) => () => void;
}) {
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
        onConfirm={() => {
          const undo = onStart("reconnect");
          reconnect.mutate({ teamId }, { onError: undo });
        }}
      />
      <ConfirmButton
        label={`Restart all stopped (${stopped})`}
        title={`Restart ${plural(stopped, "stopped instance")}?`}
        body={`${plural(stopped, "instance")} stopped after repeated crashes will start again with a clean crash history. If the cause is not fixed, ${stopped === 1 ? "it" : "they"} will stop again.`}
        confirmLabel={`Restart ${plural(stopped, "instance")}`}
        disabled={stopped === 0 || restart.isPending}
        onConfirm={() => {
          const undo = onStart("restart");
          restart.mutate({ teamId }, { onError: undo });
        }}
      />
    </div>
  );
}
