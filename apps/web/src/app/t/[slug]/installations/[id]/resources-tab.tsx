"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/react";
import { LoadMore } from "~/components/ui/load-more";
import { FormError } from "~/components/ui/form-error";

export function ResourcesTab({ teamId, instanceId }: { teamId: string; instanceId: string }) {
  const trpc = useTRPC();
  const resources = useInfiniteQuery(
    trpc.instance.resources.infiniteQueryOptions(
      { teamId, instanceId, limit: 50 },
      { getNextPageParam: (l) => l.nextCursor },
    ),
  );
  const templates = useInfiniteQuery(
    trpc.instance.resourceTemplates.infiniteQueryOptions(
      { teamId, instanceId, limit: 50 },
      { getNextPageParam: (l) => l.nextCursor },
    ),
  );
  return (
    <div className="stack">
      <section className="card stack" aria-labelledby="res-h">
        <h2 id="res-h">Resources</h2>
        <PagedTable
          label="Resources"
          query={resources}
          empty="No resources."
          cols={["URI", "Name", "Type"]}
          cells={(r) => [<code key="u">{r.uri}</code>, r.title ?? r.name, r.mimeType ?? "—"]}
        />
      </section>
      <section className="card stack" aria-labelledby="tpl-h">
        <h2 id="tpl-h">Resource templates</h2>
        <PagedTable
          label="Resource templates"
          query={templates}
          empty="No resource templates."
          cols={["URI template", "Name", "Type"]}
          cells={(r) => [<code key="u">{r.uriTemplate}</code>, r.title ?? r.name, r.mimeType ?? "—"]}
        />
      </section>
    </div>
  );
}

type Item = {
  id: string;
  name: string;
  title: string | null;
  mimeType: string | null;
  uri?: string;
  uriTemplate?: string;
};

function PagedTable<T extends Item>({
  label,
  query,
  empty,
  cols,
  cells,
}: {
  /** The table's accessible name. */
  label: string;
  query: {
    isPending: boolean;
    isError: boolean;
    error: unknown;
    data?: { pages: Array<{ items: T[] }> };
    hasNextPage: boolean;
    isFetchingNextPage: boolean;
    fetchNextPage: () => unknown;
  };
  empty: string;
  cols: string[];
  cells: (row: T) => React.ReactNode[];
}) {
  if (query.isPending) return <div className="skeleton" aria-busy="true" />;
  if (query.isError) return <FormError error={query.error} />;
  const rows = query.data?.pages.flatMap((p) => p.items) ?? [];
  if (rows.length === 0) return <p className="empty">{empty}</p>;
  return (
    <>
      <table className="responsive" aria-label={label}>
        <thead>
          <tr>
            {cols.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.id}>
              {cells(r).map((c, i) =>
                i === 0 ? (
                  <th key={i} scope="row">
                    {c}
                  </th>
                ) : (
                  <td key={i} data-label={cols[i]}>
                    {c}
                  </td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
      <LoadMore query={query} />
    </>
  );
}
