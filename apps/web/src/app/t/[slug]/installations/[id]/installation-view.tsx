"use client";

import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { LiveIndicator, useLiveUpdates } from "~/components/console/use-live-updates";
import { errorMessage } from "~/lib/errors";
import { useTRPC } from "~/trpc/react";
import { InstancesTab } from "./instances-tab";
import { RequestLogTab } from "./request-log-tab";
import { ResourcesTab } from "./resources-tab";
import { SandboxWarning } from "./sandbox-section";
import { SettingsTab } from "./settings-tab";
import { TimelineTab } from "./timeline-tab";
import { ToolGovernancePanel } from "./tool-governance-panel";
import { ToolsTab } from "./tools-tab";

const TABS = ["Instances", "Tools", "Resources", "Timeline", "Request log", "Settings"] as const;
type Tab = (typeof TABS)[number];

export function InstallationView(props: { teamId: string; slug: string; installationId: string; userId: string; isAdmin: boolean; initialInstanceId: string | null }) {
  const { teamId, slug, installationId, userId, isAdmin } = props;
  const trpc = useTRPC();
  const live = useLiveUpdates(teamId);
  const [tab, setTab] = useState<Tab>("Instances");
  const installation = useQuery(trpc.installation.get.queryOptions({ teamId, installationId }));
  const instances = useInfiniteQuery(
    trpc.instance.ofInstallation.infiniteQueryOptions({ teamId, installationId, limit: 25 }, { getNextPageParam: (last) => last.nextCursor }),
  );
  const rows = instances.data?.pages.flatMap((p) => p.items) ?? [];
  const [picked, setPicked] = useState<string | null>(props.initialInstanceId);
  // The instance the catalogue, resources and timeline tabs show: picked, else the viewer's own, else the first.
  const selected = rows.find((r) => r.id === picked) ?? rows.find((r) => r.userId === userId) ?? rows[0];
  const tabs = TABS.filter((t) => t !== "Settings" || isAdmin);

  if (installation.isPending) return <div className="card stack" aria-busy="true"><div className="skeleton" /><div className="skeleton" /></div>;
  if (installation.isError) {
    return (
      <div className="card stack">
        <p className="error" role="alert">Could not load this server: {errorMessage(installation.error)}</p>
        <Link href={`/t/${slug}/servers`}>Back to the installed servers</Link>
      </div>
    );
  }
  const i = installation.data;
  const pickInstance = (id: string, next: Tab) => {
    setPicked(id);
    setTab(next);
  };

  return (
    <div className="stack">
      <div className="row" style={{ justifyContent: "space-between" }}>
        <div className="stack" style={{ gap: ".2rem" }}>
          <Link href={`/t/${slug}/servers`} className="small">← Installed servers</Link>
          <h1 style={{ margin: 0 }}>{i.name} <code className="muted small">{i.slug}</code></h1>
          <span className="muted">{i.template.name} · <code>{i.template.target}</code></span>
        </div>
        <LiveIndicator status={live.status} />
      </div>

      <SandboxWarning sandbox={i.sandbox} />

      <div className="tabs" role="tablist" aria-label="Installation sections">
        {tabs.map((t) => (
          <button key={t} type="button" role="tab" id={`tab-${t}`} aria-selected={t === tab} aria-controls="tab-panel" onClick={() => setTab(t)}>
            {t}
          </button>
        ))}
      </div>

      {tab !== "Instances" && tab !== "Settings" && tab !== "Request log" && rows.length > 1 && (
        <label style={{ flexDirection: "row", alignItems: "center" }}>
          Instance of
          <select value={selected?.id ?? ""} onChange={(e) => setPicked(e.target.value)}>
            {rows.map((r) => <option key={r.id} value={r.id}>{r.user.name} ({r.user.email})</option>)}
          </select>
        </label>
      )}

      <div id="tab-panel" role="tabpanel" aria-labelledby={`tab-${tab}`}>
        {tab === "Instances" && <InstancesTab teamId={teamId} canRestart={isAdmin} query={instances} rows={rows} onHistory={(id) => pickInstance(id, "Timeline")} onTools={(id) => pickInstance(id, "Tools")} />}
        {tab === "Tools" && isAdmin && <ToolGovernancePanel teamId={teamId} installationId={installationId} />}
        {tab === "Tools" && (selected ? <ToolsTab teamId={teamId} instanceId={selected.id} /> : <NoInstance />)}
        {tab === "Resources" && (selected ? <ResourcesTab teamId={teamId} instanceId={selected.id} /> : <NoInstance />)}
        {tab === "Timeline" && (selected ? <TimelineTab teamId={teamId} instanceId={selected.id} /> : <NoInstance />)}
        {tab === "Request log" && <RequestLogTab teamId={teamId} installationId={installationId} isAdmin={isAdmin} />}
        {tab === "Settings" && isAdmin && <SettingsTab teamId={teamId} slug={slug} installation={i} />}
      </div>
    </div>
  );
}

function NoInstance() {
  return <div className="card empty">No instance yet: the worker is creating one per member.</div>;
}
