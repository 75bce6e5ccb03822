"use client";

import { keepPreviousData, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { CatalogueFigure } from "~/components/console/catalogue-figure";
import { useUrlState } from "~/components/ui/use-url-state";
import { useTRPC } from "~/trpc/react";
import { QueryState } from "~/components/ui/query-state";
import { FormError } from "~/components/ui/form-error";

/**
 * The instance's tools as the installation serves them (namespaced, after the admins' governance: renamed,
 * described anew, or marked off), with token counts and the schema on demand.
 */
export function ToolsTab({ teamId, instanceId }: { teamId: string; instanceId: string }) {
  const trpc = useTRPC();
  // The search is in the URL (?tools=...), so a link can point at the tools it found.
  const [get, set] = useUrlState({ tools: "" });
  const search = get("tools");
  const [text, setText] = useState(search);
  useEffect(() => {
    if (text === search) return;
    const timer = setTimeout(() => set({ tools: text.trim() }), 250);
    return () => clearTimeout(timer);
  }, [text, search, set]);
  const tools = useInfiniteQuery(
    trpc.instance.tools.infiniteQueryOptions(
      { teamId, instanceId, limit: 50, ...(search ? { search } : {}) },
      { getNextPageParam: (last) => last.nextCursor, placeholderData: keepPreviousData },
    ),
  );
  const [open, setOpen] = useState<string | null>(null);
  const rows = tools.data?.pages.flatMap((p) => p.items) ?? [];
  const head = tools.data?.pages[0];

  const searchBox = (
    <label className="inline-label" style={{ maxWidth: "24rem" }}>
      <span>Search tools</span>
      <input type="search" value={text} onChange={(e) => setText(e.target.value)} placeholder="Name or description" />
    </label>
  );
  if (tools.isPending)
    return (
      <div className="card stack" aria-busy="true">
        <div className="skeleton" />
        <div className="skeleton" />
      </div>
    );
  if (tools.isError)
    return <FormError error={tools.error} prefix="Could not load the tools: " className="error card" />;
  return (
    <div className="card stack">
      <div className="row" data-testid="tool-totals">
        <CatalogueFigure numbers={head?.served} view="installation" testId="tools-served" strong />
        {head && (head.offered.toolCount !== head.served.toolCount || head.offered.tokens !== head.served.tokens) && (
          <>
            <span className="muted">·</span>
            <CatalogueFigure numbers={head.offered} view="upstream" testId="tools-offered" />
          </>
        )}
      </div>
      {searchBox}
      {rows.length === 0 ? (
        <div className="empty">
          {search ? `No tools match “${search}”.` : "No tools discovered yet. They appear once the instance is online."}
        </div>
      ) : (
        <table className="responsive">
          <thead>
            <tr>
              <th>Tool</th>
              <th>Description</th>
              <th style={{ textAlign: "right" }}>Tokens</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {rows.map((t) => (
              <ToolRow
                key={t.id}
                teamId={teamId}
                instanceId={instanceId}
                tool={t}
                open={open === t.id}
                onToggle={() => setOpen(open === t.id ? null : t.id)}
              />
            ))}
          </tbody>
        </table>
      )}
      {tools.hasNextPage && (
        <button
          type="button"
          className="secondary"
          onClick={() => tools.fetchNextPage()}
          disabled={tools.isFetchingNextPage}
        >
          {tools.isFetchingNextPage ? "Loading…" : "More tools"}
        </button>
      )}
    </div>
  );
}

function ToolRow({
  teamId,
  instanceId,
  tool,
  open,
  onToggle,
}: {
  teamId: string;
  instanceId: string;
  tool: {
    id: string;
    name: string;
    exposedName: string;
    description: string;
    tokenCount: number;
    nameTooLong: boolean;
    served: boolean;
  };
  open: boolean;
  onToggle: () => void;
}) {
  const trpc = useTRPC();
  const schema = useQuery({
    ...trpc.instance.toolSchema.queryOptions({ teamId, instanceId, toolId: tool.id }),
    enabled: open,
  });
  return (
    <>
      <tr data-testid="tool-row" data-served={tool.served}>
        <td data-label="Tool">
          <code className="tool-name">{tool.exposedName}</code>
          {!tool.served && (
            <span className="badge" style={{ marginLeft: 6 }} title="An admin turned it off or holds it for review.">
              not served
            </span>
          )}
          {tool.nameTooLong && (
            <span
              className="badge warning"
              style={{ marginLeft: 6 }}
              title="Longer than 64 characters: some clients reject it."
            >
              name too long
            </span>
          )}
        </td>
        <td data-label="Description" className="small">
          {tool.description || <span className="muted">—</span>}
        </td>
        <td data-label="Tokens" style={{ textAlign: "right" }}>
          {tool.tokenCount.toLocaleString()}
        </td>
        <td data-label="">
          <button type="button" className="secondary small" aria-expanded={open} onClick={onToggle}>
            {open ? "Hide schema" : "Schema"}
          </button>
        </td>
      </tr>
      {open && (
        <tr>
          <td colSpan={4}>
            <QueryState query={schema} loading={<div className="skeleton" />}>
              {(data) => <pre className="block">{JSON.stringify(data.inputSchema, null, 2)}</pre>}
            </QueryState>
          </td>
        </tr>
      )}
    </>
  );
}
