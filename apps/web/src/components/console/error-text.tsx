"use client";

import { boundDetail, humanizeError } from "@switchboard/core/errors";

/**
 * A failure as a person reads it: one line (core `humanizeError`), and the raw text, bounded and cleaned,
 * behind a "details" disclosure. Neither can widen its container: the line is clipped with an ellipsis (full
 * sentence in the tooltip), the detail wraps anywhere and scrolls inside a capped box.
 */
export function ErrorText({
  message,
  detail,
  testId,
}: {
  message: string | null | undefined;
  detail?: string | null;
  testId?: string;
}) {
  if (!message && !detail) return null;
  // With its detail given, the message is already the sentence (recorded by the worker, answered by a test):
  // only bound it. Alone, it may be a raw text from before the sanitiser, so it is humanized here.
  const human =
    detail && message
      ? { summary: boundDetail(message, 300).replace(/\s+/g, " "), detail: null }
      : humanizeError(message ?? detail ?? "");
  const raw = detail ? boundDetail(detail) : human.detail;
  return (
    <span className="error-text" data-testid={testId}>
      <span className="error-text-line" title={human.summary}>
        {human.summary}
      </span>
      {raw && raw !== human.summary && (
        <details className="error-text-details">
          <summary>details</summary>
          <pre>{raw}</pre>
        </details>
      )}
    </span>
  );
}

/** The one-line form for tooltips and screen-reader text. */
export function errorLine(message: string | null | undefined): string | undefined {
  return message ? humanizeError(message).summary : undefined;
}
