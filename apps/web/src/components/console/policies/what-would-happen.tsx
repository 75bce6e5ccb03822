"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { useTRPC } from "~/trpc/react";
import { usePolicyDraft } from "./policy-draft";

const EFFECT_LABEL = { permit: "Allowed", forbid: "Refused", approval: "Waits for an approver" } as const;

/**
 * "What would happen": pick a member, a server, one of its tools and the arguments, and see the decision the
 * route would make (the same core function decides), under the policies in force or under the editor's draft.
 */
export function WhatWouldHappen({ teamId }: { teamId: string }) {
  const trpc = useTRPC();
  const headingId = useId();
  const choices = useQuery(trpc.policies.choices.queryOptions({ teamId }, { staleTime: 30_000 }));
  const decide = useMutation(trpc.policies.whatWouldHappen.mutationOptions());
  const [draft] = usePolicyDraft();
  const [memberUserId, setMember] = useState("");
  const [installationId, setInstallation] = useState("");
  const [toolName, setTool] = useState("");
  const [args, setArgs] = useState("{}");
  const [client, setClient] = useState("unknown");
  const [useDraft, setUseDraft] = useState(true);
  const [problem, setProblem] = useState<string | null>(null);

  const members = choices.data?.members ?? [];
  const installations = choices.data?.installations ?? [];
  const tools = installations.find((i) => i.id === installationId)?.tools ?? [];

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    let parsed: unknown;
    try {
      parsed = JSON.parse(args || "{}");
    } catch {
      setProblem("The arguments are not valid JSON.");
      return;
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      setProblem('The arguments must be a JSON object, like {"path": "/tmp"}.');
      return;
    }
    if (!memberUserId || !installationId || !toolName) {
      setProblem("Pick a member, a server and a tool.");
      return;
    }
    setProblem(null);
    decide.mutate({
      teamId,
      memberUserId,
      installationId,
      toolName,
      arguments: parsed as Record<string, unknown>,
      client: client.trim() || "unknown",
      ...(useDraft && draft !== null ? { text: draft } : {}),
    });
  };

  const result = decide.data;
  return (
    <section className="card stack" aria-labelledby={headingId}>
      <h2 id={headingId}>What would happen</h2>
      <p className="muted">The decision the gateway would make on this call, and the policy that made it.</p>
      {choices.error && <p className="error">Could not load the members and servers: {choices.error.message}</p>}
      <form className="stack" onSubmit={submit} aria-label="What would happen" noValidate>
        <label>
          Member
          <select value={memberUserId} onChange={(e) => setMember(e.target.value)}>
            <option value="">Choose a member</option>
            {members.map((m) => (
              <option key={m.userId} value={m.userId}>
                {m.name} &lt;{m.email}&gt; · {m.role}
              </option>
            ))}
          </select>
        </label>
        <label>
          Server
          <select
            value={installationId}
            onChange={(e) => {
              setInstallation(e.target.value);
              setTool("");
            }}
          >
            <option value="">Choose a server</option>
            {installations.map((i) => (
              <option key={i.id} value={i.id}>
                {i.name} ({i.slug})
              </option>
            ))}
          </select>
        </label>
        <label>
          Tool
          <select value={toolName} onChange={(e) => setTool(e.target.value)} disabled={!installationId}>
            <option value="">Choose a tool</option>
            {tools.map((t) => (
              <option key={t.name} value={t.name}>
                {t.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Arguments (JSON)
          <textarea
            rows={4}
            spellCheck={false}
            style={{ fontFamily: "var(--font-mono, monospace)" }}
            value={args}
            onChange={(e) => setArgs(e.target.value)}
          />
        </label>
        <label>
          Client name
          <input value={client} onChange={(e) => setClient(e.target.value)} />
        </label>
        <label className="row" style={{ gap: 8 }}>
          <input type="checkbox" checked={useDraft} onChange={(e) => setUseDraft(e.target.checked)} />
          Decide under the text in the editor (unchecked: the policies in force)
        </label>
        {problem && (
          <p className="error" role="alert">
            {problem}
          </p>
        )}
        {decide.error && (
          <p className="error" role="alert">
            {decide.error.message}
          </p>
        )}
        <div>
          <button type="submit" className="primary" disabled={decide.isPending}>
            {decide.isPending ? "Deciding…" : "See the decision"}
          </button>
        </div>
      </form>
      {result && (
        // The status region wraps the list: a role on the <dl> itself would take its list semantics away.
        <div aria-label="Decision" role="status">
          <dl>
            <dt>Decision</dt>
            <dd>
              {result.hidden ? "Hidden: the member's client does not see this tool" : EFFECT_LABEL[result.effect]}
            </dd>
            <dt>Reason</dt>
            <dd>{result.reason ?? "—"}</dd>
            <dt>Policy</dt>
            <dd>{result.policyId ?? "—"}</dd>
            <dt>Policy version</dt>
            <dd>{result.policyVersion}</dd>
          </dl>
        </div>
      )}
    </section>
  );
}
