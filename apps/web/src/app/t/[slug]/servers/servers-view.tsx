"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { statusLabelFor, statusTone, type InstanceStatus } from "@switchboard/core/status";
import { LiveIndicator, useLiveUpdates } from "~/components/console/use-live-updates";
import { ResponsiveTable } from "~/components/ui/responsive-table";
import { SearchBox, useUrlSearch } from "~/components/ui/search-box";
import { useTRPC } from "~/trpc/react";
import { InstallWizard } from "./install-wizard";
import { LoadMore } from "~/components/ui/load-more";

const TRANSPORT_LABEL = { stdio: "stdio", sse: "SSE", streamable_http: "Streamable HTTP" } as const;

export function ServersView({ teamId, slug, isAdmin }: { teamId: string; slug: string; isAdmin: boolean }) {
  const trpc = useTRPC();
  const [installing, setInstalling] = useState(false);
  // Closing the wizard returns focus to the button that opened it (which reappears as the wizard goes).
  const trigger = useRef<HTMLButtonElement>(null);
  const wasInstalling = useRef(false);
  useEffect(() => {
    if (wasInstalling.current && !installing) trigger.current?.focus();
    wasInstalling.current = installing;
  }, [installing]);
  const live = useLiveUpdates(teamId);
  const { text, setText, search } = useUrlSearch();
  const list = useInfiniteQuery(
    trpc.installation.list.infiniteQueryOptions(
      { teamId, limit: 25, ...(search ? { search } : {}) },
      { getNextPageParam: (last) => last.nextCursor, placeholderData: (previous) => previous },
    ),
  );
  const sandbox = list.data?.pages[0]?.sandbox ?? null;
  const unconfined = sandbox !== null && (sandbox.mode === "off" || !sandbox.available);
  const rows = list.data?.pages.flatMap((p) => p.items) ?? [];

  return (
    <div className="stack">
      <div className="row" style={{ justifyContent: "space-between" }}>
        <h1 style={{ margin: 0 }}>Installed servers</h1>
        <div className="row">
          <LiveIndicator status={live.status} />
          {isAdmin && !installing && (
            <button type="button" ref={trigger} onClick={() => setInstalling(true)}>
              Install a server
            </button>
          )}
        </div>
      </div>
      {installing && <InstallWizard teamId={teamId} slug={slug} onCancel={() => setInstalling(false)} />}
      <section className="card stack" aria-label="Installed servers">
        <SearchBox label="Search servers" placeholder="Server name or slug" text={text} setText={setText} />
        <ResponsiveTable
          label="Installed servers"
          columns={["Server", "Template", "Instances", "Request log"]}
          query={list}
          rows={rows}
          errorPrefix="Could not load the servers: "
          empty={
            search
              ? `No server's name or slug contains “${search}”.`
              : `Nothing installed yet.${
                  isAdmin
                    ? " Install a server (a preset, an import or your own) to give every member an instance."
                    : " Ask an admin to install one."
                }`
          }
          row={(i) => (
            <tr key={i.id} data-testid="installation-row">
              <th scope="row">
                <Link href={`/t/${slug}/installations/${i.id}`}>{i.name}</Link> <code className="muted">{i.slug}</code>
              </th>
              <td data-label="Template">
                <span>
                  {i.template.name} <span className="badge">{TRANSPORT_LABEL[i.template.transport]}</span>
                  {i.template.transport === "stdio" && unconfined && (
                    <span
                      className="badge warning"
                      title="The sandbox is off or unavailable on this deployment: see the server's page."
                    >
                      {sandbox?.mode === "off" ? "no sandbox" : "cannot start"}
                    </span>
                  )}
                </span>
              </td>
              <td data-label="Instances">
                <div className="row">
                  {statusBadges(i.statusCounts, i.ownStatus).map(({ status, count, own }) => (
                    <span
                      key={`${status}-${own}`}
                      className={`badge ${statusTone(status) === "muted" ? "" : statusTone(status)}`}
                    >
                      {count} {statusLabelFor(status, { own })}
                    </span>
                  ))}
                  {i.instanceCount === 0 && <span className="muted">creating…</span>}
                </div>
              </td>
              <td data-label="Request log">{i.requestLogging ? "on" : "off"}</td>
            </tr>
          )}
        />
      </section>
      <LoadMore query={list} />
    </div>
  );
}

/**
 * Everyone's instances by status, the caller's own counted apart where the words differ ("Needs your settings"
 * is the caller's to do; another member's reads "Waiting for the member's settings").
 */
function statusBadges(
  counts: Record<string, number>,
  ownStatus: InstanceStatus | null,
): Array<{ status: InstanceStatus; count: number; own: boolean }> {
  return Object.entries(counts).flatMap(([key, n]) => {
    const status = key as InstanceStatus;
    const personal = statusLabelFor(status, { own: true }) !== statusLabelFor(status, { own: false });
    if (!personal) return [{ status, count: n, own: false }];
    const mine = ownStatus === status ? 1 : 0;
    return [
      ...(mine ? [{ status, count: 1, own: true }] : []),
      ...(n - mine > 0 ? [{ status, count: n - mine, own: false }] : []),
    ];
  });
}
