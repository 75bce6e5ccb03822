"use client";

import Link from "next/link";
import { Pager, pageOf } from "~/components/ui/pager";
import type { RouterOutputs } from "~/trpc/types";
import { GROUPS, groupCount, matchesStatus, problems, total, type StatusCounts } from "./groups";

type Overview = RouterOutputs["instance"]["overview"];

const SERVER_PAGE = 20;
const MEMBER_PAGE = 25;

function CountCells({ counts }: { counts: StatusCounts }) {
  return (
    <>
      {GROUPS.map((g) => {
        const n = groupCount(counts, g);
        return (
          <td
            key={g.id}
            data-label={g.label}
            className={`num ${n > 0 && g.id !== "online" && g.id !== "starting" ? `count-${g.id}` : ""}`}
          >
            {n === 0 ? (
              <span className="muted">
                <span aria-hidden="true">–</span>
                <span className="sr-only">none</span>
              </span>
            ) : (
              n.toLocaleString()
            )}
          </td>
        );
      })}
      <td data-label="Instances" className="num">
        {total(counts).toLocaleString()}
      </td>
    </>
  );
}

function CountHeaders() {
  return (
    <>
      {GROUPS.map((g) => (
        <th key={g.id} scope="col" className="num">
          {g.label}
        </th>
      ))}
      <th scope="col" className="num">
        Instances
      </th>
    </>
  );
}

const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);

/** One row per installed server: its instances by group; search, sort and pages come from the URL. */
export function ServersTable({
  slug,
  data,
  q,
  status,
  sort,
  page,
  onPage,
}: {
  slug: string;
  data: Overview;
  q: string;
  status: string;
  sort: string;
  page: number;
  onPage: (p: number) => void;
}) {
  const needle = q.trim().toLowerCase();
  const rows = data.servers
    .filter(
      (s) =>
        (!needle || s.name.toLowerCase().includes(needle) || s.slug.includes(needle)) &&
        matchesStatus(s.counts, status),
    )
    .sort((a, b) => (sort === "problems" ? problems(b.counts) - problems(a.counts) || byName(a, b) : byName(a, b)));
  const p = pageOf(rows, page, SERVER_PAGE);
  if (data.servers.length === 0) return null;
  return (
    <div className="stack">
      <div className="table-scroll" tabIndex={0} role="region" aria-label="Servers, scrolls sideways">
        <table className="sticky-first responsive" aria-label="Instances by server" data-testid="servers-table">
          <thead>
            <tr>
              <th scope="col">Server</th>
              <CountHeaders />
            </tr>
          </thead>
          <tbody>
            {p.rows.map((s) => (
              <tr key={s.id} data-testid={`server-row-${s.slug}`}>
                <th scope="row">
                  <Link href={`/t/${slug}/installations/${s.id}`}>{s.name}</Link>
                  <div className="muted small">{s.slug}</div>
                </th>
                <CountCells counts={s.counts} />
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {rows.length === 0 && <div className="empty">No servers match.</div>}
      <Pager page={p.page} pageCount={p.pageCount} onPage={onPage} label="Server pages" />
      <p className="muted small" style={{ margin: 0 }}>
        {rows.length.toLocaleString()} of {data.servers.length.toLocaleString()} servers
      </p>
    </div>
  );
}

/** One row per member with their instances by group; a member's name opens their row of the matrix. */
export function MembersTable({
  data,
  q,
  status,
  sort,
  page,
  onPage,
  onOpen,
}: {
  data: Overview;
  q: string;
  status: string;
  sort: string;
  page: number;
  onPage: (p: number) => void;
  onOpen: (email: string) => void;
}) {
  const needle = q.trim().toLowerCase();
  const rows = data.members
    .filter(
      (m) =>
        (!needle || m.user.name.toLowerCase().includes(needle) || m.user.email.toLowerCase().includes(needle)) &&
        matchesStatus(m.counts, status),
    )
    .sort((a, b) =>
      sort === "problems"
        ? problems(b.counts) - problems(a.counts) || byName(a.user, b.user)
        : sort === "joined"
          ? a.joinedAt.getTime() - b.joinedAt.getTime()
          : byName(a.user, b.user),
    );
  const p = pageOf(rows, page, MEMBER_PAGE);
  return (
    <div className="stack">
      <div className="table-scroll" tabIndex={0} role="region" aria-label="Members, scrolls sideways">
        <table className="sticky-first responsive" aria-label="Instances by member" data-testid="members-table">
          <thead>
            <tr>
              <th scope="col">Member</th>
              <th scope="col">Role</th>
              <CountHeaders />
            </tr>
          </thead>
          <tbody>
            {p.rows.map((m) => (
              <tr key={m.membershipId} data-testid="member-row">
                <th scope="row">
                  <button
                    type="button"
                    className="link"
                    onClick={() => onOpen(m.user.email)}
                    aria-label={`Show ${m.user.name}'s instances`}
                  >
                    {m.user.name}
                  </button>
                  <div className="muted small">{m.user.email}</div>
                </th>
                <td data-label="Role">{m.role}</td>
                <CountCells counts={m.counts} />
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {rows.length === 0 && <div className="empty">No members match.</div>}
      <Pager page={p.page} pageCount={p.pageCount} onPage={onPage} label="Member pages" />
      <p className="muted small" style={{ margin: 0 }}>
        {rows.length.toLocaleString()} of {data.members.length.toLocaleString()} members
      </p>
    </div>
  );
}
