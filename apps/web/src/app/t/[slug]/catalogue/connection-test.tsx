"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { TRANSPORT_LABELS } from "@switchboard/core/config";
import { ErrorText } from "~/components/console/error-text";
import { errorMessage } from "~/lib/errors";
import { useTRPC } from "~/trpc/react";
import type { RouterInputs } from "~/trpc/types";
import { FormError } from "~/components/ui/form-error";

type Template = RouterInputs["catalogue"]["testConnection"]["template"];

/** A finished test: whether it connected, in one sentence, and the definition it tried. */
export interface TestOutcome {
  ok: boolean;
  message: string;
  template: Template;
}

/**
 * "Test connection" inside a server's definition form: values for the settings it needs (used for this test only,
 * never stored), then what the server answered: transport, protocol revision, name, tools and token cost, or one
 * sentence why not with the raw detail behind a disclosure.
 */
export function ConnectionTest({
  teamId,
  template,
  fields,
  onResult,
}: {
  teamId: string;
  template: () => Template;
  fields: { key: string; secret: boolean; required: boolean; tier: string }[];
  onResult?: (outcome: TestOutcome) => void;
}) {
  const trpc = useTRPC();
  const [values, setValues] = useState<Record<string, string>>({});
  const test = useMutation(trpc.catalogue.testConnection.mutationOptions());
  const needed = fields.filter((f) => f.key.trim() !== "");
  const r = test.data;
  return (
    <section
      className="stack"
      aria-label="Test connection"
      style={{ borderTop: "1px solid var(--border)", paddingTop: ".75rem" }}
    >
      <h3 style={{ margin: 0 }}>Test connection</h3>
      {needed.length > 0 && (
        <details>
          <summary className="small">
            Values for the test ({needed.filter((f) => f.required).length} required); used once, not stored
          </summary>
          <div className="row" style={{ alignItems: "flex-start" }}>
            {needed.map((f) => (
              <label key={f.key} style={{ minWidth: 0 }}>
                {f.key}
                {f.required ? " (required)" : ""}
                <input
                  type={f.secret ? "password" : "text"}
                  autoComplete="off"
                  value={values[f.key] ?? ""}
                  onChange={(e) => setValues((v) => ({ ...v, [f.key]: e.target.value }))}
                />
              </label>
            ))}
          </div>
        </details>
      )}
      <div className="row">
        <button
          type="button"
          className="secondary"
          disabled={test.isPending}
          onClick={() => {
            const tried = template();
            test.mutate(
              {
                teamId,
                template: tried,
                values: Object.fromEntries(Object.entries(values).filter(([, v]) => v !== "")),
              },
              {
                onSuccess: (r) => onResult?.({ ok: r.ok, message: r.message, template: tried }),
                onError: (e) => onResult?.({ ok: false, message: errorMessage(e), template: tried }),
              },
            );
          }}
        >
          {test.isPending ? "Testing…" : "Test connection"}
        </button>
        {test.isPending && (
          <span className="muted small" role="status">
            Connecting (at most about 20 s)…
          </span>
        )}
      </div>
      <FormError error={test.error} />
      {r && (
        <div
          className={r.ok ? "stack" : "stack error"}
          role="status"
          data-testid="connection-test-result"
          style={{ gap: ".25rem", minWidth: 0 }}
        >
          {r.ok ? <strong>{r.message}</strong> : <ErrorText message={r.message} detail={r.detail} />}
          {(r.transport || r.protocolVersion || r.requiresOAuth) && (
            <span className="muted small">
              {[
                r.transport && `Transport: ${TRANSPORT_LABELS[r.transport]}`,
                r.protocolVersion && `protocol ${r.protocolVersion}`,
                r.serverName && `server ${r.serverName}${r.serverVersion ? ` ${r.serverVersion}` : ""}`,
                r.requiresOAuth && "requires OAuth",
              ]
                .filter(Boolean)
                .join(" · ")}
            </span>
          )}
        </div>
      )}
    </section>
  );
}
