"use client";

import { STATUS_LABELS, statusTone, type InstanceStatus } from "@switchboard/core/status";
import { errorLine } from "./error-text";

/** Colour and words for an instance status; the status message is the tooltip and the accessible description. */
export function StatusBadge({ status, message }: { status: InstanceStatus; message?: string | null }) {
  const tone = statusTone(status);
  message = errorLine(message);
  return (
    <span className={`badge ${tone === "muted" ? "" : tone}`} title={message ?? undefined} data-status={status}>
      {STATUS_LABELS[status]}
      {message ? <span className="sr-only">: {message}</span> : null}
    </span>
  );
}
