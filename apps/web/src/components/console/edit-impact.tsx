"use client";

import type { RouterOutputs } from "~/trpc/types";

type Impact = RouterOutputs["installation"]["editImpact"];

const n = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** What saving an edit does, in words: who restarts, who must fill something in, what is dropped, what else changes. */
export function describeImpact(impact: Impact, currentInstallationId?: string): string {
  if (!impact.restarts) return "Only the name changes: nothing restarts.";
  const parts = [`This restarts ${n(impact.restarting, "member's instance", "members' instances")}`];
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

/** The confirmation step of an edit: the impact in words, then save or go back. */
export function EditConfirm({
  impact,
  currentInstallationId,
  pending,
  onConfirm,
  onBack,
}: {
  impact: Impact;
  currentInstallationId?: string;
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
      <p id="edit-confirm-body" style={{ margin: 0 }}>
        {describeImpact(impact, currentInstallationId)}
      </p>
      <div className="row" style={{ justifyContent: "flex-end" }}>
        <button type="button" className="secondary" onClick={onBack} disabled={pending}>
          Back
        </button>
        <button type="button" onClick={onConfirm} disabled={pending} autoFocus>
          {pending ? "Saving…" : impact.restarts ? "Save and restart" : "Save"}
        </button>
      </div>
    </div>
  );
}
