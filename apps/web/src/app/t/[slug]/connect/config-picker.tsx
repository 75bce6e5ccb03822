"use client";

import { useState } from "react";
import { CopyButton } from "~/components/copy-button";

/** One client's copy-paste configuration (client-configs.ts). */
export interface ClientConfig {
  id: string;
  name: string;
  where: string;
  text: string;
}

/** A row of client tabs, then the chosen client's configuration: where it goes, the text and a copy button. */
export function ConfigPicker({
  label,
  configs,
  initial = configs[0]!.id,
  copyLabel,
  testId,
}: {
  /** The tab list's accessible name. */
  label: string;
  configs: readonly ClientConfig[];
  /** The client chosen at first; the first one by default. */
  initial?: string;
  copyLabel: string;
  /** On the configuration's `<pre>`. */
  testId?: string;
}) {
  const [client, setClient] = useState(initial);
  const selected = configs.find((c) => c.id === client) ?? configs[0]!;
  return (
    <>
      <div className="row" role="tablist" aria-label={label}>
        {configs.map((c) => (
          <button
            key={c.id}
            type="button"
            role="tab"
            aria-selected={c.id === client}
            className={c.id === client ? "" : "secondary"}
            onClick={() => setClient(c.id)}
          >
            {c.name}
          </button>
        ))}
      </div>
      <span className="muted">{selected.where}</span>
      <pre className="block" style={{ whiteSpace: "pre-wrap", margin: 0 }} data-testid={testId}>
        <code>{selected.text}</code>
      </pre>
      <div>
        <CopyButton value={selected.text} label={copyLabel} />
      </div>
    </>
  );
}
