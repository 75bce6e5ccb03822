"use client";

import type { DefinitionChange } from "@switchboard/core/config";
import type { RouterOutputs } from "~/trpc/types";

type Impact = RouterOutputs["installation"]["editImpact"];

const n = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** A part's label inside a sentence: "Description" reads "description", "URL" and "OAuth" stay. */
const inSentence = (label: string) => (/^[A-Z][a-z]/.test(label) ? label.toLowerCase() : label);
const list = (words: string[]) =>
  words.length <= 1 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;

/**
 * What saving an edit does, in words: who restarts and because of what (the server's `restarts` decides, by
 * core's `definitionChanges` rule; `changes` name the parts), who must fill something in, what is dropped, what
 * else changes.
 */
export function describeImpact(impact: Impact, currentInstallationId?: string, changes?: DefinitionChange[]): string {
  const words = (restarts: boolean) =>
    (changes ?? []).filter((c) => c.restarts === restarts).map((c) => inSentence(c.label));
  if (!impact.restarts) {
    const changed = words(false);
    if (changes && changes.length === 0) return "Nothing changes.";
    return changed.length > 0
      ? `Only the ${list(changed)} change${changed.length === 1 ? "s" : ""}: nothing restarts.`
      : "Nothing restarts.";
  }
  const because = words(true);
  const reason =
    because.length > 0
      ? `, because the ${list(because)} change${because.length === 1 ? "s" : ""}`
      : changes
        ? ", because team values change"
        : "";
  const parts = [`This restarts ${n(impact.restarting, "member's instance", "members' instances")}${reason}`];
  if (impact.awaiting > 0)
    parts.push(
      `${n(impact.awaiting, "member")} must fill in ${impact.newlyRequired.join(", ") || "a required setting"} before theirs starts again`,
    );
  let text = `${parts.join("; ")}.`;
  if (impact.dropped.length > 0) text += ` The stored values of ${impact.dropped.join(", ")} are deleted.`;
  const others = impact.installations.filter((i) => i.id !== currentInstallationId);
  if (currentInstallationId && others.length > 0)
    text += ` ${others.map((i) => i.name).join(", ")} use${others.length === 1 ? "s" : ""} the same template and change${others.length === 1 ? "s" : ""} too.`;
  if (!currentInstallationId && impact.installations.length > 0)
    text += ` Installations using this template: ${impact.installations.map((i) => i.name).join(", ")}.`;
  return text;
}

/** What a saved edit did, for the status line after saving. */
export function describeSaved(impact: Impact): string {
  if (!impact.restarts) return "Saved. Nothing restarts.";
  return `Saved. ${n(impact.restarting, "member's instance is", "members' instances are")} restarting with the new configuration.`;
}

/**
 * The confirmation step of an edit: what changes, before and after; the impact in words; a warning when the
 * connection failed its test; then save or go back.
 */
export function EditConfirm({
  impact,
  currentInstallationId,
  changes,
  warning,
  pending,
  onConfirm,
  onBack,
}: {
  impact: Impact;
  currentInstallationId?: string;
  /** The parts that change (core's `definitionChanges`), shown as a before/after table. */
  changes?: DefinitionChange[];
  /** Why saving may be a mistake (the last connection test failed); the save button then says "Save anyway". */
  warning?: string;
  pending: boolean;
  onConfirm: () => void;
  onBack: () => void;
}) {
  return (
    <div
      className="card stack"
      role="alertdialog"
      aria-labelledby="edit-confirm-h"
      aria-describedby="edit-confirm-body"
      data-testid="edit-confirm"
    >
      <h3 id="edit-confirm-h" style={{ margin: 0 }}>
        Save these changes?
      </h3>
      {changes && changes.length > 0 && (
        <table
          aria-label="What changes"
          data-testid="edit-changes"
          style={{ width: "100%", tableLayout: "fixed", overflowWrap: "anywhere" }}
        >
          <thead>
            <tr>
              <th scope="col">Part</th>
              <th scope="col">Before</th>
              <th scope="col">After</th>
              <th scope="col">Restarts</th>
            </tr>
          </thead>
          <tbody>
            {changes.map((c) => (
              <tr key={c.part}>
                <th scope="row">{c.label}</th>
                <td style={{ overflowWrap: "anywhere" }}>{c.before || <span className="muted">none</span>}</td>
                <td style={{ overflowWrap: "anywhere" }}>{c.after || <span className="muted">none</span>}</td>
                <td>{c.restarts ? "yes" : "no"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p id="edit-confirm-body" style={{ margin: 0 }}>
        {describeImpact(impact, currentInstallationId, changes)}
      </p>
      {warning && (
        <p className="error" role="alert" data-testid="edit-warning" style={{ margin: 0 }}>
          {warning}
        </p>
      )}
      <div className="row" style={{ justifyContent: "flex-end" }}>
        <button type="button" className="secondary" onClick={onBack} disabled={pending}>
          Back
        </button>
        <button type="button" onClick={onConfirm} disabled={pending} autoFocus>
          {pending ? "Saving…" : warning ? "Save anyway" : impact.restarts ? "Save and restart" : "Save"}
        </button>
      </div>
    </div>
  );
}
