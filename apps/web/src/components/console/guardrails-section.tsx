"use client";

import {
  GUARDRAIL_ACTION_LABELS,
  GUARDRAIL_ACTIONS,
  GUARDRAIL_CATEGORIES,
  GUARDRAIL_CATEGORY_LABELS,
  type GuardrailAction,
  type GuardrailCategory,
} from "@switchboard/core/guardrails/rules";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { FormActions } from "~/components/ui/form-actions";
import { useTRPC } from "~/trpc/react";
import { FormError } from "~/components/ui/form-error";

type Settings = Record<GuardrailCategory, GuardrailAction>;

/**
 * Guardrails on what flows through this server's calls (docs/guardrails.md): for each category of credentials
 * and personal data, off, flag (recorded only), redact or block. Admins only; a change applies within 5 seconds.
 */
export function GuardrailsSection({ teamId, installationId }: { teamId: string; installationId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const headingId = useId();
  const query = useQuery(trpc.governance.guardrails.queryOptions({ teamId, installationId }, { staleTime: 5_000 }));
  const save = useMutation(
    trpc.governance.setGuardrails.mutationOptions({
      onSuccess: (data) => {
        queryClient.setQueryData(trpc.governance.guardrails.queryKey({ teamId, installationId }), data);
        setDraft(null);
        setSaved(true);
      },
    }),
  );
  const [draft, setDraft] = useState<Settings | null>(null);
  const [saved, setSaved] = useState(false);
  const current = draft ?? query.data?.settings;

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    if (!draft) return;
    setSaved(false);
    save.mutate({ teamId, installationId, settings: draft });
  };

  return (
    <section className="card stack" aria-labelledby={headingId}>
      <h2 id={headingId}>Guardrails</h2>
      <p className="muted">
        Scans tool arguments, tool results and resource contents for credentials and personal data. Flag records a
        finding in the request log and the audit trail (never the value); redact replaces the match with a mark like
        “[redacted:card]”; block refuses the call or withholds its result. A change applies within 5 seconds.
      </p>
      {query.isError && <FormError error={query.error} prefix="Could not load the guardrails: " />}
      {query.isPending && <p className="muted">Loading…</p>}
      {current && query.data && (
        <form className="stack" onSubmit={submit} aria-label="Guardrails" noValidate>
          {GUARDRAIL_CATEGORIES.map((category) => (
            <label key={category}>
              {GUARDRAIL_CATEGORY_LABELS[category]}
              <select
                value={current[category]}
                onChange={(e) => {
                  setSaved(false);
                  setDraft({ ...current, [category]: e.target.value as GuardrailAction });
                }}
              >
                {GUARDRAIL_ACTIONS.map((action) => (
                  <option key={action} value={action}>
                    {GUARDRAIL_ACTION_LABELS[action]}
                    {query.data.defaults[category] === action ? " (default)" : ""}
                  </option>
                ))}
              </select>
            </label>
          ))}
          {draft ? (
            <FormActions
              mutation={save}
              label="Save guardrails"
              pendingLabel="Saving…"
              onCancel={() => {
                save.reset();
                setDraft(null);
              }}
            />
          ) : (
            saved && (
              <p className="muted" role="status">
                Saved. Calls follow the new guardrails within 5 seconds.
              </p>
            )
          )}
        </form>
      )}
    </section>
  );
}
