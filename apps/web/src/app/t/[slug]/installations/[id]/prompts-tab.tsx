"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/react";
import { FormError } from "~/components/ui/form-error";

/** The prompts the server offers through the gateway (namespaced like its tools), with their arguments. */
export function PromptsTab({ teamId, instanceId }: { teamId: string; instanceId: string }) {
  const trpc = useTRPC();
  const prompts = useInfiniteQuery(
    trpc.instance.prompts.infiniteQueryOptions(
      { teamId, instanceId, limit: 50 },
      { getNextPageParam: (l) => l.nextCursor },
    ),
  );
  if (prompts.isPending)
    return (
      <div className="card stack" aria-busy="true">
        <div className="skeleton" />
        <div className="skeleton" />
      </div>
    );
  if (prompts.isError)
    return <FormError error={prompts.error} prefix="Could not load the prompts: " className="error card" />;
  const rows = prompts.data.pages.flatMap((p) => p.items);
  return (
    <div className="card stack">
      {rows.length === 0 ? (
        <div className="empty">This server offers no prompts, or they are not discovered yet.</div>
      ) : (
        <table className="responsive">
          <thead>
            <tr>
              <th>Prompt</th>
              <th>Description</th>
              <th>Arguments</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((p) => (
              <tr key={p.id} data-testid="prompt-row">
                <td data-label="Prompt">
                  <code className="name">{p.exposedName}</code>
                  {p.title && <div className="muted small">{p.title}</div>}
                </td>
                <td data-label="Description" className="small">
                  {p.description || <span className="muted">—</span>}
                </td>
                <td data-label="Arguments" className="small">
                  {p.arguments.length === 0 ? (
                    <span className="muted">none</span>
                  ) : (
                    p.arguments.map((a) => (
                      <div key={a.name}>
                        <code>{a.name}</code>
                        {a.required && <span className="muted"> (required)</span>}
                        {a.description && <span className="muted"> — {a.description}</span>}
                      </div>
                    ))
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {prompts.hasNextPage && (
        <button
          type="button"
          className="secondary"
          onClick={() => prompts.fetchNextPage()}
          disabled={prompts.isFetchingNextPage}
        >
          More prompts
        </button>
      )}
    </div>
  );
}
