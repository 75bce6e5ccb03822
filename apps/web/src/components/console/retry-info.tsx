"use client";

import { useNow } from "./use-now";

/** "attempt 3 · retry in 12 s" while an instance waits for its next reconnect attempt. */
export function RetryInfo({ attempt, nextRetryAt }: { attempt: number; nextRetryAt: Date | null }) {
  const now = useNow(nextRetryAt !== null);
  if (!nextRetryAt || attempt === 0) return null;
  // Before the first client tick the countdown is left out, so server and browser render the same text.
  const seconds = now === null ? null : Math.max(0, Math.ceil((nextRetryAt.getTime() - now) / 1000));
  return (
    <span className="muted small" data-testid="retry-info">
      attempt {attempt}
      {seconds === null ? "" : seconds > 0 ? ` · retry in ${seconds} s` : " · retrying now"}
    </span>
  );
}
