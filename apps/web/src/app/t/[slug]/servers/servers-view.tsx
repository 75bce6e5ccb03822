"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { STATUS_LABELS, statusTone, type InstanceStatus } from "@switchboard/core/status";
import { LiveIndicator, useLiveUpdates } from "~/components/console/use-live-updates";
import { errorMessage } from "~/lib/errors";
import { useTRPC } from "~/trpc/react";
import { InstallWizard } from "./install-wizard";

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
  const list = useInfiniteQuery(
    trpc.installation.list.infiniteQueryOptions({ teamId, limit: 25 }, { getNextPageParam: (last) => last.nextCursor }),
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
      {list.isPending ? (
        <div className="card stack" aria-busy="true">
          <div className="skeleton" />
          <div className="skeleton" />
        </div>
      ) : list.isError ? (
        <p className="error card" role="alert">
          Could not load the servers: {errorMessage(list.error)}
        </p>
      ) : rows.length === 0 ? (
        <div className="card empty">
          Nothing installed yet.
          {isAdmin
            ? " Install a server (a preset, an import or your own) to give every member an instance."
            : " Ask an admin to install one."}
        </div>
      ) : (
        <div className="card">
          <table>
            <thead>
              <tr>
                <th>Server</th>
                <th>Template</th>
                <th>Instances</th>
                <th>Request log</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((i) => (
                <tr key={i.id} data-testid="installation-row">
                  <td>
                    <Link href={`/t/${slug}/installations/${i.id}`}>{i.name}</Link>{" "}
                    <code className="muted">{i.slug}</code>
                  </td>
                  <td>
                    {i.template.name} <span className="badge">{TRANSPORT_LABEL[i.template.transport]}</span>
                    {i.template.transport === "stdio" && unconfined && (
                      <span
                        className="badge warning"
                        title="The sandbox is off or unavailable on this deployment: see the server's page."
                      >
                        {sandbox?.mode === "off" ? "no sandbox" : "cannot start"}
                      </span>
                    )}
                  </td>
                  <td>
                    <div className="row">
                      {Object.entries(i.statusCounts).map(([s, n]) => (
                        <span
                          key={s}
                          className={`badge ${statusTone(s as InstanceStatus) === "muted" ? "" : statusTone(s as InstanceStatus)}`}
                        >
                          {n} {STATUS_LABELS[s as InstanceStatus]}
                        </span>
                      ))}
                      {i.instanceCount === 0 && <span className="muted">creating…</span>}
                    </div>
                  </td>
                  <td>{i.requestLogging ? "on" : "off"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.hasNextPage && (
        <button
          type="button"
          className="secondary"
          onClick={() => list.fetchNextPage()}
          disabled={list.isFetchingNextPage}
        >
          {list.isFetchingNextPage ? "Loading…" : "Load more"}
        </button>
      )}
    </div>
  );
}
