"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Field } from "~/components/field";
import type { RouterOutputs } from "~/trpc/types";
import { useTRPC } from "~/trpc/react";
import type { TemplateDraftValue } from "../catalogue/template-form";
import { FormError } from "~/components/ui/form-error";

type Existing = { id: string; slug: string; name: string }[];
type CatalogueItem = RouterOutputs["catalogue"]["list"]["items"][number];

const OFFICIAL_REGISTRY = "https://registry.modelcontextprotocol.io";

/** The built-in presets (the MCP reference servers); one already in the catalogue is installed from there. */
export function PresetPicker({
  teamId,
  existing,
  onPick,
  onUseExisting,
  onCancel,
}: {
  teamId: string;
  existing: (Existing[number] & CatalogueItem)[];
  onPick: (draft: TemplateDraftValue) => void;
  onUseExisting: (template: CatalogueItem) => void;
  onCancel: () => void;
}) {
  const trpc = useTRPC();
  const presets = useQuery(trpc.registry.presets.queryOptions({ teamId }, { staleTime: Infinity }));
  if (presets.isPending) return <div className="skeleton" aria-busy="true" />;
  if (presets.isError) return <FormError error={presets.error} />;
  return (
    <div className="stack">
      <ul className="stack" aria-label="Presets" style={{ listStyle: "none", padding: 0, margin: 0 }}>
        {presets.data.map(({ id, draft }) => {
          const already = existing.find((t) => t.slug === draft.slug);
          return (
            <li
              key={id}
              className="row"
              style={{
                justifyContent: "space-between",
                borderBottom: "1px solid var(--border)",
                paddingBottom: ".5rem",
                flexWrap: "wrap",
              }}
            >
              <div className="stack" style={{ gap: ".15rem", minWidth: 0, flex: "1 1 16rem" }}>
                <strong>{draft.name}</strong>
                <span className="muted small">{draft.description}</span>
                <code className="small" style={{ overflowWrap: "anywhere" }}>
                  {[draft.command, ...draft.args].join(" ")}
                </code>
              </div>
              {already ? (
                <button
                  type="button"
                  className="secondary"
                  onClick={() => onUseExisting(already)}
                  aria-label={`Install ${draft.name} from your catalogue`}
                >
                  Install (in catalogue)
                </button>
              ) : (
                <button type="button" onClick={() => onPick(draft)} aria-label={`Use ${draft.name}`}>
                  Use
                </button>
              )}
            </li>
          );
        })}
      </ul>
      <p className="muted small" style={{ margin: 0 }}>
        Local commands need the deployment to allow your team and the launcher (npx or uvx); a deployment owner sets
        that in Deployment settings.
      </p>
      <div className="row" style={{ justifyContent: "flex-end" }}>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}

/** A server.json pasted or uploaded, or fetched from a registry by name: becomes a prefilled definition. */
export function ImportForm({
  teamId,
  onImported,
  onCancel,
}: {
  teamId: string;
  onImported: (draft: TemplateDraftValue, notes: string[]) => void;
  onCancel: () => void;
}) {
  const trpc = useTRPC();
  const [document, setDocument] = useState("");
  const [baseUrl, setBaseUrl] = useState(OFFICIAL_REGISTRY);
  const [name, setName] = useState("");
  const fromDocument = useMutation(
    trpc.registry.importDocument.mutationOptions({ onSuccess: (r) => onImported(r.draft, r.notes) }),
  );
  const fromRegistry = useMutation(
    trpc.registry.importFromRegistry.mutationOptions({ onSuccess: (r) => onImported(r.draft, r.notes) }),
  );
  return (
    <div className="stack">
      <form
        className="stack"
        aria-label="Import a server.json"
        onSubmit={(e) => {
          e.preventDefault();
          fromDocument.mutate({ teamId, document });
        }}
      >
        <Field label="server.json (paste it, or choose a file)">
          {(p) => (
            <textarea
              {...p}
              rows={6}
              value={document}
              spellCheck={false}
              onChange={(e) => setDocument(e.target.value)}
              placeholder={'{ "name": "io.github.example/weather", "packages": [ … ] }'}
            />
          )}
        </Field>
        <div className="row" style={{ justifyContent: "space-between", flexWrap: "wrap" }}>
          <label style={{ flexDirection: "row", alignItems: "center" }}>
            File
            <input
              type="file"
              accept="application/json,.json"
              onChange={async (e) => {
                const file = e.target.files?.[0];
                if (file) setDocument(await file.text());
              }}
            />
          </label>
          <button type="submit" disabled={fromDocument.isPending || document.trim().length < 2}>
            {fromDocument.isPending ? "Reading…" : "Import"}
          </button>
        </div>
        <FormError error={fromDocument.error} />
      </form>
      <form
        className="stack"
        aria-label="Import from a registry"
        onSubmit={(e) => {
          e.preventDefault();
          fromRegistry.mutate({ teamId, baseUrl, name });
        }}
      >
        <div className="row" style={{ alignItems: "flex-end", flexWrap: "wrap" }}>
          <Field label="Registry" style={{ flex: "1 1 14rem" }}>
            {(p) => <input {...p} value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} />}
          </Field>
          <Field label="Server name" style={{ flex: "1 1 14rem" }}>
            {(p) => (
              <input
                {...p}
                value={name}
                onChange={(e) => setName(e.target.value)}
                placeholder="io.github.example/weather"
              />
            )}
          </Field>
          <button type="submit" className="secondary" disabled={fromRegistry.isPending || !name.trim()}>
            {fromRegistry.isPending ? "Fetching…" : "Fetch"}
          </button>
        </div>
        <FormError error={fromRegistry.error} />
      </form>
      <div className="row" style={{ justifyContent: "flex-end" }}>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
