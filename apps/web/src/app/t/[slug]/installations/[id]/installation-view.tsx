"use client";

import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { Tabs, tabPanelProps } from "~/components/ui/tabs";
import { useUrlState } from "~/components/ui/use-url-state";
import { LiveIndicator, useLiveUpdates } from "~/components/console/use-live-updates";
import { useTRPC } from "~/trpc/react";
import { InstancesTab } from "./instances-tab";
import { PromptsTab } from "./prompts-tab";
import { RequestLogTab } from "./request-log-tab";
import { ResourcesTab } from "./resources-tab";
import { SandboxWarning } from "./sandbox-section";
import { SettingsTab } from "./settings-tab";
import { TimelineTab } from "./timeline-tab";
import { ToolGovernancePanel } from "./tool-governance-panel";
import { ToolsTab } from "./tools-tab";
import { FormError } from "~/components/ui/form-error";

const TABS = [
  { id: "instances", label: "Instances" },
  { id: "tools", label: "Tools" },
  { id: "resources", label: "Resources" },
  { id: "prompts", label: "Prompts" },
  { id: "timeline", label: "Timeline" },
  { id: "log", label: "Request log" },
  { id: "settings", label: "Settings" },
] as const;
type Tab = (typeof TABS)[number]["id"];

export function InstallationView(props: {
  teamId: string;
  slug: string;
  installationId: string;
  userId: string;
  isAdmin: boolean;
  initialInstanceId: string | null;
}) {
  const { teamId, slug, installationId, userId, isAdmin } = props;
  const trpc = useTRPC();
  const live = useLiveUpdates(teamId);
  // On the Request log tab the one indicator says live only while the log's own stream is connected too.
  const [logLive, setLogLive] = useState<string>();
  // The tab and the instance it shows live in the URL: a link opens the same view.
  const [get, set] = useUrlState({ tab: "instances", instance: "" });
  const tabs = TABS.filter((t) => t.id !== "settings" || isAdmin);
  const tab: Tab = tabs.find((t) => t.id === get("tab"))?.id ?? "instances";
  const setTab = (t: Tab) => set({ tab: t });
  // Being removed from the Settings tab: stop asking for it (each answer would be a 404, and the live stream's
  // events can arrive before the removal's own answer) until the page leaves, or the removal fails.
  const [removing, setRemoving] = useState(false);
  const installation = useQuery(trpc.installation.get.queryOptions({ teamId, installationId }, { enabled: !removing }));
  const instances = useInfiniteQuery(
    trpc.instance.ofInstallation.infiniteQueryOptions(
      { teamId, installationId, limit: 25 },
      { getNextPageParam: (last) => last.nextCursor, enabled: !removing },
    ),
  );
  const rows = instances.data?.pages.flatMap((p) => p.items) ?? [];
  const picked = get("instance") || props.initialInstanceId;
  const setPicked = (id: string) => set({ instance: id });
  // The instance the catalogue, resources and timeline tabs show: picked, else the viewer's own, else the first.
  const selected = rows.find((r) => r.id === picked) ?? rows.find((r) => r.userId === userId) ?? rows[0];
  // A link to an instance that is gone (its member left) or that this member cannot see (another member's) says
  // so instead of quietly showing another one; only once every instance is loaded, since it could be on a later page.
  const stalePick =
    Boolean(picked) && instances.isSuccess && !instances.hasNextPage && !rows.some((r) => r.id === picked);

  if (installation.isPending)
    return (
      <div className="card stack" aria-busy="true">
        <div className="skeleton" />
        <div className="skeleton" />
      </div>
    );
  if (installation.isError) {
    return (
      <div className="card stack">
        <FormError error={installation.error} prefix="Could not load this server: " />
        <Link href={`/t/${slug}/servers`}>Back to the installed servers</Link>
      </div>
    );
  }
  const i = installation.data;
  const pickInstance = (id: string, next: Tab) => set({ instance: id, tab: next });

  return (
    <div className="stack">
      <div className="row" style={{ justifyContent: "space-between" }}>
        <div className="stack" style={{ gap: ".2rem" }}>
          <Link href={`/t/${slug}/servers`} className="small">
            ← Installed servers
          </Link>
          <h1 style={{ margin: 0 }}>
            {i.name} <code className="muted small">{i.slug}</code>
          </h1>
          <span className="muted">
            {i.template.name} · <code>{i.template.target}</code>
          </span>
        </div>
        <LiveIndicator status={tab === "log" && logLive !== "pending" ? (logLive ?? live.status) : live.status} />
      </div>

      <SandboxWarning sandbox={i.sandbox} />
      {stalePick && (
        <p className="card needs-you" role="status" data-testid="stale-instance">
          The instance in this link is gone, or not yours to see
          {selected ? `; showing ${selected.userId === userId ? "yours" : `${selected.user.name}'s`} instead` : ""}.
        </p>
      )}

      <Tabs label="Installation sections" idBase="installation" tabs={tabs} value={tab} onChange={setTab} />

      {tab !== "instances" && tab !== "settings" && tab !== "log" && rows.length > 1 && (
        <label style={{ flexDirection: "row", alignItems: "center" }}>
          Instance of
          <select value={selected?.id ?? ""} onChange={(e) => setPicked(e.target.value)}>
            {rows.map((r) => (
              <option key={r.id} value={r.id}>
                {r.user.name} ({r.user.email})
              </option>
            ))}
          </select>
        </label>
      )}

      <div {...tabPanelProps("installation", tab)}>
        {tab === "instances" && (
          <InstancesTab
            teamId={teamId}
            canRestart={isAdmin}
            query={instances}
            rows={rows}
            onHistory={(id) => pickInstance(id, "timeline")}
            onTools={(id) => pickInstance(id, "tools")}
          />
        )}
        {tab === "tools" && isAdmin && <ToolGovernancePanel teamId={teamId} installationId={installationId} />}
        {tab === "tools" && (selected ? <ToolsTab teamId={teamId} instanceId={selected.id} /> : <NoInstance />)}
        {tab === "resources" && (selected ? <ResourcesTab teamId={teamId} instanceId={selected.id} /> : <NoInstance />)}
        {tab === "prompts" && (selected ? <PromptsTab teamId={teamId} instanceId={selected.id} /> : <NoInstance />)}
        {tab === "timeline" && (selected ? <TimelineTab teamId={teamId} instanceId={selected.id} /> : <NoInstance />)}
        {tab === "log" && (
          <RequestLogTab teamId={teamId} installationId={installationId} isAdmin={isAdmin} onLiveStatus={setLogLive} />
        )}
        {tab === "settings" && isAdmin && (
          <SettingsTab teamId={teamId} slug={slug} installation={i} onRemoving={setRemoving} />
        )}
      </div>
    </div>
  );
}

function NoInstance() {
  return <div className="card empty">No instance yet: the worker is creating one per member.</div>;
}
