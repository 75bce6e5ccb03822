"use client";

import { useState } from "react";
import { OptimisticCheckbox } from "~/components/optimistic-checkbox";

const STATE_LABELS = {
  on: { label: "on", tone: "ok" },
  off: { label: "off", tone: "" },
  new_off: { label: "new, off until reviewed", tone: "warning" },
  awaiting_review: { label: "changed, awaiting review", tone: "warning" },
  rejected: { label: "change rejected", tone: "danger" },
} as const;

type GovernedTool = {
  name: string;
  description: string;
  tokenCount: number;
  enabled: boolean;
  exposedName: string | null;
  exposedDescription: string | null;
  namespacedName: string;
  nameTooLong: boolean;
  state: keyof typeof STATE_LABELS;
  requiresApproval: boolean;
};

/** A tool of the governance table: its switches and state, and below it its rename form or review when open. */
export function GovernedToolRow(props: {
  tool: GovernedTool;
  busy: boolean;
  editing: boolean;
  reviewing: boolean;
  review: React.ReactNode;
  onEdit: () => void;
  onToggle: (enabled: boolean) => void;
  onApproval: (requiresApproval: boolean) => void;
  onRename: (exposedName: string | null, exposedDescription: string | null) => void;
  onReview: () => void;
}) {
  const { tool: t } = props;
  const [name, setName] = useState(t.exposedName ?? "");
  const [description, setDescription] = useState(t.exposedDescription ?? "");
  const state = STATE_LABELS[t.state];
  const needsReview = t.state === "awaiting_review" || t.state === "rejected";
  return (
    <>
      <tr data-testid="governed-tool" data-tool={t.name}>
        <td data-label="On">
          <OptimisticCheckbox aria-label={`Expose ${t.name}`} checked={t.enabled} onCheckedChange={props.onToggle} />
        </td>
        <td data-label="Tool">
          <code>{t.namespacedName}</code>
          {t.exposedName && (
            <div className="muted small">
              upstream: <code>{t.name}</code>
            </div>
          )}
          {t.nameTooLong && (
            <span className="badge warning" style={{ marginLeft: 6 }}>
              name too long
            </span>
          )}
        </td>
        <td className="small" data-label="Description">
          {t.exposedDescription ?? (t.description || <span className="muted">—</span>)}
        </td>
        <td data-label="State">
          <span className={`badge ${state.tone}`}>{state.label}</span>
        </td>
        <td data-label="Needs approval">
          <OptimisticCheckbox
            aria-label={`${t.name} needs approval for each call`}
            checked={t.requiresApproval}
            onCheckedChange={props.onApproval}
          />
        </td>
        <td data-label="">
          <div className="row" style={{ flexWrap: "nowrap" }}>
            {needsReview && (
              <button type="button" className="small" aria-expanded={props.reviewing} onClick={props.onReview}>
                {props.reviewing ? "Close review" : "Review"}
              </button>
            )}
            <button type="button" className="secondary small" aria-expanded={props.editing} onClick={props.onEdit}>
              {props.editing ? "Cancel" : "Rename"}
            </button>
          </div>
        </td>
      </tr>
      {props.editing && (
        <tr>
          <td colSpan={6}>
            <form
              className="stack"
              aria-label={`Rename ${t.name}`}
              onSubmit={(e) => {
                e.preventDefault();
                props.onRename(name.trim() || null, description.trim() || null);
              }}
            >
              <div className="row" style={{ alignItems: "flex-end" }}>
                <label style={{ flex: 1 }}>
                  Exposed name (empty: the upstream's)
                  <input
                    value={name}
                    onChange={(e) => setName(e.target.value)}
                    placeholder={t.name}
                    maxLength={64}
                    pattern="[A-Za-z0-9_.\-]+"
                  />
                </label>
                <button type="submit" disabled={props.busy}>
                  Save name
                </button>
              </div>
              <label>
                Exposed description (empty: the upstream's)
                <textarea
                  value={description}
                  onChange={(e) => setDescription(e.target.value)}
                  rows={2}
                  maxLength={4000}
                  placeholder={t.description}
                />
              </label>
            </form>
          </td>
        </tr>
      )}
      {props.reviewing && (
        <tr>
          <td colSpan={6}>{props.review}</td>
        </tr>
      )}
    </>
  );
}
