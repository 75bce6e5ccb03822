"use client";

import { STATUS_LABELS, statusTone, type InstanceStatus } from "@switchboard/core/status";
import { errorLine } from "./error-text";

/**
 * Colour and words for an instance status. The status message is the tooltip and is also read out as part of
 * the badge (screen readers do not get tooltips); `label` replaces the words for another reader.
 */
export function StatusBadge({
  status,
  message,
  label,
}: {
  status: InstanceStatus;
  message?: string | null;
  label?: string;
}) {
  const tone = statusTone(status);
  message = errorLine(message);
  return (
    <span className={`badge ${tone === "muted" ? "waiting" : tone}`} title={message ?? undefined} data-status={status}>
      {label ?? STATUS_LABELS[status]}
      {message ? <span className="sr-only">: {message}</span> : null}
    </span>
  );
}
