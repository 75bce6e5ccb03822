"use client";

import Link from "next/link";
import type { ReactNode } from "react";
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

/** A count table (scrolling sideways, first column sticky) with its page of rows, empty line, pager and tally. */
function CountTable<T>({
  one,
  many,
  label,
  testId,
  head,
  rows,
  of,
  page,
  pageSize,
  onPage,
  row,
}: {
  /** "Server": the pager's "Server pages". */
  one: string;
  /** "servers": "No servers match.", "3 of 9 servers". */
  many: string;
  label: string;
  testId: string;
  head: ReactNode;
  rows: T[];
  /** How many there are before search and filters. */
  of: number;
  page: number;
  pageSize: number;
  onPage: (p: number) => void;
  row: (r: T) => ReactNode;
}) {
  const p = pageOf(rows, page, pageSize);
  return (
    <div className="stack">
      <div
        className="table-scroll"
        tabIndex={0}
        role="region"
        aria-label={`${many[0]!.toUpperCase()}${many.slice(1)}, scrolls sideways`}
      >
        <table className="sticky-first responsive" aria-label={label} data-testid={testId}>
          <thead>
            <tr>
              {head}
              <CountHeaders />
            </tr>
          </thead>
          <tbody>{p.rows.map(row)}</tbody>
        </table>
      </div>
      {rows.length === 0 && <div className="empty">No {many} match.</div>}
      <Pager page={p.page} pageCount={p.pageCount} onPage={onPage} label={`${one} pages`} />
      <p className="muted small" style={{ margin: 0 }}>
        {rows.length.toLocaleString()} of {of.toLocaleString()} {many}
      </p>
    </div>
  );
}

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
  if (data.servers.length === 0) return null;
  return (
    <CountTable
      one="Server"
      many="servers"
      label="Instances by server"
      testId="servers-table"
      head={<th scope="col">Server</th>}
      rows={rows}
      of={data.servers.length}
      page={page}
      pageSize={SERVER_PAGE}
      onPage={onPage}
      row={(s) => (
        <tr key={s.id} data-testid={`server-row-${s.slug}`}>
          <th scope="row">
            <Link href={`/t/${slug}/installations/${s.id}`}>{s.name}</Link>
            <div className="muted small">{s.slug}</div>
          </th>
          <CountCells counts={s.counts} />
        </tr>
      )}
    />
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
  return (
    <CountTable
      one="Member"
      many="members"
      label="Instances by member"
      testId="members-table"
      head={
        <>
          <th scope="col">Member</th>
          <th scope="col">Role</th>
        </>
      }
      rows={rows}
      of={data.members.length}
      page={page}
      pageSize={MEMBER_PAGE}
      onPage={onPage}
      row={(m) => (
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
      )}
    />
  );
}
