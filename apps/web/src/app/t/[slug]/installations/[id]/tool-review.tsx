"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { diffLines } from "diff";
import { useTRPC } from "~/trpc/react";
import { FormError } from "~/components/ui/form-error";

/** The approved and the new definition side by side as a line diff, with Approve and Reject. */
export function ToolReview({
  teamId,
  installationId,
  name,
  onDone,
}: {
  teamId: string;
  installationId: string;
  name: string;
  onDone: () => void;
}) {
  const trpc = useTRPC();
  const review = useQuery(trpc.governance.review.queryOptions({ teamId, installationId, name }));
  const decide = useMutation(trpc.governance.decide.mutationOptions({ onSuccess: onDone }));
  if (review.isPending) return <div className="skeleton" aria-busy="true" />;
  if (review.isError) return <FormError error={review.error} />;
  const before = review.data.approved ? JSON.stringify(review.data.approved, null, 2) : "";
  const after = JSON.stringify(review.data.proposed, null, 2);
  const parts = diffLines(before, after);
  return (
    <div className="stack" data-testid="tool-review">
      <strong>
        {review.data.approved ? `The definition of ${name} changed` : `${name} is new`}: check it before members can use
        it.
      </strong>
      <pre className="block" aria-label="Definition diff" style={{ maxHeight: 420 }}>
        {parts.map((p, i) => (
          <span
            key={i}
            data-change={p.added ? "added" : p.removed ? "removed" : "same"}
            style={{ display: "block", background: p.added ? "#d3f9d8" : p.removed ? "#ffe3e3" : undefined }}
          >
            {p.value
              .replace(/\n$/, "")
              .split("\n")
              .map((line) => `${p.added ? "+ " : p.removed ? "- " : "  "}${line}`)
              .join("\n")}
          </span>
        ))}
      </pre>
      {decide.isError && <FormError error={decide.error} />}
      <div className="row">
        <button
          type="button"
          disabled={decide.isPending}
          onClick={() => decide.mutate({ teamId, installationId, name, hash: review.data.hash, decision: "approved" })}
        >
          Approve new definition
        </button>
        <button
          type="button"
          className="danger"
          disabled={decide.isPending}
          onClick={() => decide.mutate({ teamId, installationId, name, hash: review.data.hash, decision: "rejected" })}
        >
          Reject
        </button>
      </div>
    </div>
  );
}
