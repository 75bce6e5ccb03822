"use client";

import { describeGuardrailFinding } from "@switchboard/core/guardrails/rules";
import { useQuery } from "@tanstack/react-query";
import { ErrorText } from "~/components/console/error-text";
import { When } from "~/components/when";
import { useTRPC } from "~/trpc/react";
import { outcomeLabel } from "./request-call";
import { QueryState } from "~/components/ui/query-state";

/** One call's details: names, outcome, who, guardrail findings, its arguments (redacted) and result. */
export function RequestDetail({ teamId, callId, onClose }: { teamId: string; callId: string; onClose: () => void }) {
  const trpc = useTRPC();
  const entry = useQuery(trpc.ops.requestLogEntry.queryOptions({ teamId, callId }));
  return (
    <section className="stack request-detail" aria-label="Request details" data-testid="request-detail">
      <div className="row" style={{ justifyContent: "space-between" }}>
        <h2 className="request-detail-title">Request details</h2>
        <button type="button" className="secondary small" onClick={onClose}>
          Close
        </button>
      </div>
      <QueryState query={entry} loading={<div className="skeleton" />}>
        {(data) => (
          <>
            <dl className="request-facts small">
              <dt>Called as</dt>
              <dd>
                <code className="tool-name">{data.requested ?? data.target}</code> ({data.method})
              </dd>
              <dt>Upstream name</dt>
              <dd>
                <code className="tool-name">{data.target}</code>
              </dd>
              <dt>Outcome</dt>
              <dd>
                {outcomeLabel(data.outcome)} · {data.durationMs} ms · {data.attempts} attempt
                {data.attempts === 1 ? "" : "s"} · {data.resultBytes} bytes
              </dd>
              <dt>By</dt>
              <dd>
                {data.user.name}
                {data.token?.kind === "oauth" ? ` via ${data.token.name}` : ""} · <When date={data.createdAt} />
              </dd>
              {data.guardrailFindings.length > 0 && (
                <>
                  <dt>Guardrails</dt>
                  <dd>
                    <ul aria-label="Guardrail findings">
                      {data.guardrailFindings.map((f) => (
                        <li key={`${f.where}${f.path}${f.category}${f.rule}`}>{describeGuardrailFinding(f)}</li>
                      ))}
                    </ul>
                  </dd>
                </>
              )}
            </dl>
            {data.errorMessage && (
              <p className="error">
                <ErrorText message={data.errorMessage} testId="request-error" />
              </p>
            )}
            {/* Each block may scroll sideways (on a phone): focusable, so a keyboard can scroll it too. */}
            <h3 className="small">Arguments (secrets redacted)</h3>
            <pre className="block" tabIndex={0} aria-label="Arguments">
              {JSON.stringify(data.arguments ?? {}, null, 2)}
            </pre>
            <h3 className="small">Result</h3>
            <pre className="block" tabIndex={0} aria-label="Result">
              {data.resultSummary ?? "—"}
            </pre>
          </>
        )}
      </QueryState>
    </section>
  );
}
