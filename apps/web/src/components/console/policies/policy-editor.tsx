"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useState } from "react";
import { ConfirmButton } from "~/components/confirm-button";
import { useTRPC } from "~/trpc/react";
import { usePolicyDraft } from "./policy-draft";

/**
 * The team's policy text: the version in force (or the defaults), checked against the schema as the admin
 * types (problems name their line), saved as a new version after a confirmation.
 */
export function PolicyEditor({ teamId }: { teamId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const headingId = useId();
  const editorId = useId();
  const current = useQuery(trpc.policies.current.queryOptions({ teamId }, { staleTime: 5_000 }));
  const [draft, setDraft] = usePolicyDraft();
  const [loadedVersion, setLoadedVersion] = useState<number | null | undefined>(undefined);
  const check = useMutation(trpc.policies.check.mutationOptions());
  const save = useMutation(
    trpc.policies.save.mutationOptions({
      onSuccess: () =>
        Promise.all([
          queryClient.invalidateQueries(trpc.policies.current.pathFilter()),
          queryClient.invalidateQueries(trpc.policies.history.pathFilter()),
        ]),
    }),
  );

  // The text in force fills the editor once, and again after a save.
  useEffect(() => {
    if (!current.data || current.data.version === loadedVersion) return;
    setLoadedVersion(current.data.version);
    setDraft(current.data.text ?? current.data.defaults);
  }, [current.data, loadedVersion, setDraft]);

  // Checked a moment after the admin stops typing.
  const { mutate: runCheck } = check;
  useEffect(() => {
    if (draft === null) return;
    const timer = setTimeout(() => runCheck({ teamId, text: draft }), 400);
    return () => clearTimeout(timer);
  }, [draft, teamId, runCheck]);

  if (current.isPending) return <p className="muted">Loading the policies…</p>;
  if (current.error) return <p className="error">Could not load the policies: {current.error.message}</p>;
  const data = current.data;
  const problems = check.data?.problems ?? [];
  const unchanged = draft === (data.text ?? data.defaults);

  return (
    <section className="card stack" aria-labelledby={headingId}>
      <h2 id={headingId}>Policy text</h2>
      <p className="muted" role="status">
        {data.version === null
          ? "The team uses the default policies (shown below). Saving makes them the team's own."
          : `Version ${data.version}, saved by ${data.savedBy} on ${new Date(data.savedAt!).toLocaleString()}.`}{" "}
        A saved change applies to calls within 5 seconds.
      </p>
      <label htmlFor={editorId}>Policies (Cedar)</label>
      <textarea
        id={editorId}
        spellCheck={false}
        rows={18}
        style={{ fontFamily: "var(--font-mono, monospace)", width: "100%" }}
        value={draft ?? ""}
        onChange={(e) => setDraft(e.target.value)}
        aria-describedby={`${editorId}-problems`}
      />
      <div id={`${editorId}-problems`} aria-live="polite">
        {problems.length === 0 ? (
          <p className="muted">{check.isPending ? "Checking…" : check.data ? "No problems found." : ""}</p>
        ) : (
          <ul className="error" aria-label="Problems">
            {problems.map((p, i) => (
              <li key={i}>{p.line > 0 ? `Line ${p.line}: ${p.message}` : p.message}</li>
            ))}
          </ul>
        )}
      </div>
      {save.error && (
        <p className="error" role="alert">
          {save.error.message}
        </p>
      )}
      <div className="row" style={{ gap: 8 }}>
        <ConfirmButton
          label="Save policies"
          title="Save these policies?"
          body="They apply to every member's calls within 5 seconds. The version in force stays in the history."
          confirmLabel="Save"
          tone="primary"
          triggerClassName="primary"
          disabled={draft === null || unchanged || problems.length > 0 || save.isPending}
          onConfirm={() => draft !== null && save.mutate({ teamId, text: draft, expectedVersion: data.version })}
        />
        {data.version !== null && data.text !== null && (
          <ConfirmButton
            label="Return to the defaults"
            title="Return to the default policies?"
            body="The team's own policies stop applying; the defaults decide every call again. They stay in the history."
            confirmLabel="Use the defaults"
            disabled={save.isPending}
            onConfirm={() => save.mutate({ teamId, text: null, expectedVersion: data.version })}
          />
        )}
      </div>
    </section>
  );
}
