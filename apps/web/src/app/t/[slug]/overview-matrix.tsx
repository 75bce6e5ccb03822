"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useSyncExternalStore } from "react";
import { nextStep, statusLabelFor, type InstanceStatus } from "@switchboard/core/status";
import { InstanceCell } from "~/components/console/instance-cell";
import { InstanceActions } from "~/components/console/instance-actions";
import { useTRPC } from "~/trpc/react";
import { FormError } from "~/components/ui/form-error";

export const MATRIX_PAGE = 25;

export function matrixInput(teamId: string, status: string, search: string) {
  return {
    teamId,
    limit: MATRIX_PAGE,
    ...(status ? { statuses: [status as InstanceStatus] } : {}),
    ...(search.trim() ? { search: search.trim() } : {}),
  };
}

/** Narrower than this, the matrix is a list of members (a grid of servers would not fit beside the names). */
const PHONE = "(max-width: 640px)";

function subscribePhone(onChange: () => void) {
  const query = window.matchMedia(PHONE);
  query.addEventListener("change", onChange);
  return () => query.removeEventListener("change", onChange);
}

/** Whether the screen is phone-sized; the server (and hydration) renders the grid. */
function usePhone() {
  return useSyncExternalStore(
    subscribePhone,
    () => window.matchMedia(PHONE).matches,
    () => false,
  );
}

/**
 * Members x installed servers, each cell the member's instance with its Reconnect or Restart, updated live. The
 * member column stays put while the servers scroll sideways inside the card; on a phone it is a list, member by
 * member, with the same cells and actions and nothing wider than the screen. A status filter keeps the members
 * who have such an instance.
 */
export function OverviewMatrix({
  teamId,
  slug,
  viewerId,
  status,
  search,
}: {
  teamId: string;
  slug: string;
  viewerId: string;
  status: string;
  search: string;
}) {
  const trpc = useTRPC();
  const matrix = useInfiniteQuery(
    trpc.instance.matrix.infiniteQueryOptions(matrixInput(teamId, status, search), {
      getNextPageParam: (last) => last.nextCursor,
    }),
  );
  const installations = matrix.data?.pages[0]?.installations ?? [];
  const rows = matrix.data?.pages.flatMap((p) => p.rows) ?? [];
  const phone = usePhone();

  if (matrix.isPending)
    return (
      <div className="card stack" aria-busy="true">
        <div className="skeleton" />
        <div className="skeleton" />
        <div className="skeleton" />
      </div>
    );
  if (matrix.isError)
    return <FormError error={matrix.error} prefix="Could not load the matrix: " className="error card" />;
  const more = matrix.hasNextPage && (
    <button
      type="button"
      className="secondary"
      onClick={() => matrix.fetchNextPage()}
      disabled={matrix.isFetchingNextPage}
    >
      {matrix.isFetchingNextPage ? "Loading…" : "More members"}
    </button>
  );
  const cellFor = (r: (typeof rows)[number], i: (typeof installations)[number]) => {
    const cell = r.cells[i.id];
    if (!cell) return null;
    const label = `${i.name} for ${r.user.name}`;
    return {
      label,
      link: (
        <Link className="cell-link" href={`/t/${slug}/installations/${i.id}?instance=${cell.id}`} aria-label={label}>
          <InstanceCell cell={cell} label={statusLabelFor(cell.status, { own: r.user.id === viewerId })} />
        </Link>
      ),
      actions: <InstanceActions teamId={teamId} instanceId={cell.id} status={cell.status} label={label} canRestart />,
    };
  };
  if (phone)
    return (
      <div className="stack">
        {rows.length === 0 ? (
          <div className="empty">No members match.</div>
        ) : (
          <ul className="matrix-members" aria-label="Instance status by member and server">
            {rows.map((r) => (
              <li key={r.membershipId}>
                <h3>{r.user.name}</h3>
                <div className="muted small">{r.user.email}</div>
                <ul className="instance-list">
                  {installations.map((i) => {
                    const c = cellFor(r, i);
                    return (
                      c && (
                        <li key={i.id} data-testid={`cell-${i.slug}-${r.user.email}`}>
                          <span className="instance-list-head">{i.name}</span>
                          {c.link}
                          {c.actions}
                        </li>
                      )
                    );
                  })}
                </ul>
              </li>
            ))}
          </ul>
        )}
        {more}
      </div>
    );
  return (
    <div className="stack">
      <div className="matrix table-scroll" tabIndex={0} role="region" aria-label="Matrix, scrolls sideways">
        <table className="sticky-first" aria-label="Instance status by member and server">
          <thead>
            <tr>
              <th scope="col">Member</th>
              {installations.map((i) => (
                <th key={i.id} scope="col">
                  <Link href={`/t/${slug}/installations/${i.id}`}>{i.name}</Link>
                  <div className="muted small" style={{ textTransform: "none" }}>
                    {i.slug}
                  </div>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.membershipId}>
                <th scope="row" className="member-cell">
                  {r.user.name}
                  <div className="muted small">{r.user.email}</div>
                </th>
                {installations.map((i) => {
                  const c = cellFor(r, i);
                  return (
                    <td key={i.id} data-testid={`cell-${i.slug}-${r.user.email}`}>
                      {c ? (
                        <div className="stack" style={{ gap: ".35rem" }}>
                          {c.link}
                          {c.actions}
                        </div>
                      ) : (
                        <span className="muted">—</span>
                      )}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
        {rows.length === 0 && <div className="empty">No members match.</div>}
      </div>
      {more}
    </div>
  );
}

/** A member's own instances as a list (not a one-row matrix): status in words, the message, what to do. */
export function MyInstancesList({ teamId, slug, status }: { teamId: string; slug: string; status: string }) {
  const trpc = useTRPC();
  const matrix = useInfiniteQuery(
    trpc.instance.matrix.infiniteQueryOptions(matrixInput(teamId, status, ""), {
      getNextPageParam: (last) => last.nextCursor,
    }),
  );
  if (matrix.isPending)
    return (
      <div className="card stack" aria-busy="true">
        <div className="skeleton" />
        <div className="skeleton" />
      </div>
    );
  if (matrix.isError)
    return <FormError error={matrix.error} prefix="Could not load your servers: " className="error card" />;
  const installations = matrix.data.pages[0]?.installations ?? [];
  const me = matrix.data.pages[0]?.rows[0];
  const items = installations.flatMap((i) => (me?.cells[i.id] ? [{ installation: i, cell: me.cells[i.id]! }] : []));
  return (
    <section className="card stack" aria-labelledby="mine-heading">
      <h2 id="mine-heading">Your servers</h2>
      {items.length === 0 ? (
        <p className="empty">{status ? "None of your servers has this status." : "You have no instances yet."}</p>
      ) : (
        <ul className="instance-list">
          {items.map(({ installation: i, cell }) => {
            const step = nextStep(cell.status, { own: true, admin: false, member: me!.user.name });
            return (
              <li key={i.id} data-testid={`cell-${i.slug}-${me!.user.email}`}>
                <div className="instance-list-head">
                  <Link
                    href={`/t/${slug}/installations/${i.id}?instance=${cell.id}`}
                    aria-label={`${i.name} for ${me!.user.name}`}
                  >
                    {i.name}
                  </Link>
                  <span className="muted small">{i.slug}</span>
                </div>
                <InstanceCell cell={cell} showMessage />
                {step && <span className="small">{step}</span>}
                <InstanceActions
                  teamId={teamId}
                  instanceId={cell.id}
                  status={cell.status}
                  label={`${i.name} for ${me!.user.name}`}
                  canRestart={false}
                />
              </li>
            );
          })}
        </ul>
      )}
      <Link href={`/t/${slug}/my-servers`}>Your settings and catalogue cost are on My servers.</Link>
    </section>
  );
}
