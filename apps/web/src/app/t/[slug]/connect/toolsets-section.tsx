"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmButton } from "~/components/confirm-button";
import { CopyButton } from "~/components/copy-button";
import { ResponsiveTable } from "~/components/ui/responsive-table";
import { useTRPC } from "~/trpc/react";
import { FormActions } from "~/components/ui/form-actions";
import { QueryState } from "~/components/ui/query-state";

type Selection = Array<{ installationId: string; toolName: string }>;
const key = (s: { installationId: string; toolName: string }) => `${s.installationId}\n${s.toolName}`;

/**
 * Toolsets: named selections of tools across servers, each at its own route with its own tool mode and token
 * cost. A member's sets are theirs; an admin can also make sets for the whole team.
 */
export function ToolsetsSection({ teamId, isAdmin, origin }: { teamId: string; isAdmin: boolean; origin: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const sets = useQuery(trpc.governance.toolsets.queryOptions({ teamId }));
  const [editing, setEditing] = useState<null | {
    id: string | null;
    name: string;
    toolMode: "all" | "router";
    teamWide: boolean;
    tools: Selection;
  }>(null);
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries(trpc.governance.pathFilter()),
      queryClient.invalidateQueries(trpc.token.pathFilter()),
    ]);
  const remove = useMutation(trpc.governance.deleteToolset.mutationOptions({ onSuccess: refresh }));

  return (
    <section className="card stack" aria-labelledby="toolsets-heading" data-testid="toolsets">
      <div className="row" style={{ justifyContent: "space-between" }}>
        <h2 id="toolsets-heading" style={{ margin: 0 }}>
          Toolsets
        </h2>
        {!editing && (
          <button
            type="button"
            className="secondary"
            onClick={() => setEditing({ id: null, name: "", toolMode: "all", teamWide: false, tools: [] })}
          >
            New toolset
          </button>
        )}
      </div>
      <p className="muted" style={{ margin: 0 }}>
        A toolset is a selection of tools across your servers with its own address. Fewer tools cost a client less
        context; a token can be limited to one toolset.
      </p>
      {editing && (
        <ToolsetEditor
          teamId={teamId}
          isAdmin={isAdmin}
          initial={editing}
          onClose={() => {
            setEditing(null);
            void refresh();
          }}
        />
      )}
      <ResponsiveTable
        label="Toolsets"
        columns={["Toolset", "Address", "Tools", "Token cost"]}
        actions
        query={sets}
        rows={sets.data}
        empty="No toolsets yet."
        actionError={remove.error}
        scrollsSideways
        row={(s) => {
          const url = new URL(s.path, origin).toString();
          const mine = !s.teamWide || isAdmin;
          return (
            <tr key={s.id} data-testid="toolset-row" data-toolset={s.name}>
              <th scope="row">
                <strong>{s.name}</strong>
                {s.teamWide && (
                  <span className="badge" style={{ marginLeft: 6 }}>
                    team
                  </span>
                )}
                {s.shadowed && <div className="muted small">your own “{s.name}” is served instead</div>}
              </th>
              <td data-label="Address">
                <div className="row" style={{ flexWrap: "nowrap" }}>
                  <code className="small">{s.path}</code>
                  <CopyButton value={url} label="Copy URL" />
                </div>
              </td>
              <td data-label="Tools">
                {s.cost.selectedTools} {s.toolMode === "router" ? "(router mode)" : ""}
              </td>
              <td data-label="Token cost" data-testid="toolset-cost">
                {s.cost.tokens.toLocaleString()} tokens
              </td>
              <td data-label="">
                {mine && (
                  <div className="row" style={{ flexWrap: "nowrap" }}>
                    <button
                      type="button"
                      className="secondary small"
                      onClick={() =>
                        setEditing({
                          id: s.id,
                          name: s.name,
                          toolMode: s.toolMode,
                          teamWide: s.teamWide,
                          tools: s.tools,
                        })
                      }
                    >
                      Edit
                    </button>
                    <ConfirmButton
                      label="Delete"
                      title={`Delete the toolset ${s.name}?`}
                      body="Tokens limited to this toolset are deleted with it; clients using them lose access."
                      confirmLabel="Delete toolset"
                      onConfirm={() => remove.mutate({ teamId, toolsetId: s.id })}
                    />
                  </div>
                )}
              </td>
            </tr>
          );
        }}
      />
    </section>
  );
}

function ToolsetEditor({
  teamId,
  isAdmin,
  initial,
  onClose,
}: {
  teamId: string;
  isAdmin: boolean;
  initial: { id: string | null; name: string; toolMode: "all" | "router"; teamWide: boolean; tools: Selection };
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const tools = useQuery(trpc.governance.myTools.queryOptions({ teamId }));
  const [name, setName] = useState(initial.name);
  const [toolMode, setToolMode] = useState(initial.toolMode);
  const [teamWide, setTeamWide] = useState(initial.teamWide);
  const [picked, setPicked] = useState(() => new Set(initial.tools.map(key)));
  const save = useMutation(trpc.governance.saveToolset.mutationOptions({ onSuccess: onClose }));
  const toggle = (k: string, on: boolean) =>
    setPicked((prev) => {
      const next = new Set(prev);
      if (on) next.add(k);
      else next.delete(k);
      return next;
    });
  const selection = (): Selection =>
    [...picked].map((k) => {
      const [installationId, toolName] = k.split("\n") as [string, string];
      return { installationId, toolName };
    });
  const tokens =
    tools.data
      ?.flatMap((s) =>
        s.tools
          .filter((t) => picked.has(key({ installationId: s.installationId, toolName: t.name })))
          .map((t) => t.tokens),
      )
      .reduce((a, b) => a + b, 0) ?? 0;

  return (
    <form
      className="stack"
      aria-label={initial.id ? `Edit toolset ${initial.name}` : "New toolset"}
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate({ teamId, id: initial.id, name, toolMode, teamWide, tools: selection() });
      }}
    >
      <div className="row" style={{ alignItems: "flex-end" }}>
        <label style={{ flex: 1 }}>
          Name (part of its address)
          <input
            value={name}
            onChange={(e) => setName(e.target.value.toLowerCase())}
            required
            minLength={2}
            maxLength={40}
            pattern="[a-z0-9]+(-[a-z0-9]+)*"
            placeholder="reading"
          />
        </label>
        <label>
          Tools exposed
          <select value={toolMode} onChange={(e) => setToolMode(e.target.value as "all" | "router")}>
            <option value="all">every tool</option>
            <option value="router">router (search + call)</option>
          </select>
        </label>
        {isAdmin && (
          <label style={{ flexDirection: "row", alignItems: "center" }}>
            <input
              type="checkbox"
              checked={teamWide}
              onChange={(e) => setTeamWide(e.target.checked)}
              disabled={initial.id !== null}
            />
            For the whole team
          </label>
        )}
      </div>
      <QueryState query={tools} loading={<div className="skeleton" />}>
        {(data) => (
          <fieldset className="stack" style={{ border: "1px solid var(--border)", borderRadius: 6 }}>
            <legend>Tools</legend>
            {data.filter((s) => s.tools.length > 0).length === 0 && <p className="muted">No tools available yet.</p>}
            {data
              .filter((s) => s.tools.length > 0)
              .map((s) => (
                <div key={s.installationId} className="stack" style={{ gap: ".25rem" }}>
                  <strong className="small">{s.name}</strong>
                  <div className="row">
                    {s.tools.map((t) => {
                      const k = key({ installationId: s.installationId, toolName: t.name });
                      return (
                        <label key={k} style={{ flexDirection: "row", alignItems: "center", fontWeight: 400 }}>
                          <input
                            type="checkbox"
                            checked={picked.has(k)}
                            onChange={(e) => toggle(k, e.target.checked)}
                          />
                          <code>{t.exposedName}</code>
                        </label>
                      );
                    })}
                  </div>
                </div>
              ))}
          </fieldset>
        )}
      </QueryState>
      <span className="muted" data-testid="toolset-draft-cost">
        {picked.size} tool{picked.size === 1 ? "" : "s"} selected ·{" "}
        {toolMode === "router"
          ? "router mode: four meta-tools"
          : `${tokens.toLocaleString()} tokens when every tool is listed`}
      </span>
      <FormActions mutation={save} label="Save toolset" pendingLabel="Saving…" onCancel={onClose} />
    </form>
  );
}
