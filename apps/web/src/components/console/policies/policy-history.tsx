"use client";

import { useQuery } from "@tanstack/react-query";
import { useId } from "react";
import { ResponsiveTable } from "~/components/ui/responsive-table";
import { useTRPC } from "~/trpc/react";

/** Every saved version of the team's policies, newest first, with who saved it; each text behind a disclosure. */
export function PolicyHistory({ teamId }: { teamId: string }) {
  const trpc = useTRPC();
  const headingId = useId();
  const query = useQuery(trpc.policies.history.queryOptions({ teamId }, { staleTime: 5_000 }));
  return (
    <section className="card stack" aria-labelledby={headingId}>
      <h2 id={headingId}>Version history</h2>
      <ResponsiveTable
        label="Policy versions"
        columns={["Version", "Saved by", "When", "Text"]}
        query={query}
        rows={query.data ?? []}
        empty="No version saved yet: the defaults apply."
        errorPrefix="Could not load the history: "
        row={(v) => (
          <tr key={v.version}>
            <th scope="row">{v.version}</th>
            <td data-label="Saved by">{v.savedBy}</td>
            <td data-label="When">{new Date(v.savedAt).toLocaleString()}</td>
            <td data-label="Text">
              {v.text === null ? (
                "Back to the defaults"
              ) : (
                <details>
                  <summary>Show</summary>
                  <pre style={{ whiteSpace: "pre-wrap" }}>{v.text}</pre>
                </details>
              )}
            </td>
          </tr>
        )}
      />
    </section>
  );
}
