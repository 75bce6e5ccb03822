"use client";

import { errorMessage } from "~/lib/errors";

/**
 * A failed mutation's (or any caught) error as one sentence in an alert, or nothing when there is none.
 * `prefix` goes before the sentence ("Could not save: ").
 */
export function FormError({
  error,
  prefix,
  className = "error",
  testId,
}: {
  error: unknown;
  prefix?: string;
  className?: string;
  testId?: string;
}) {
  if (!error) return null;
  return (
    <p className={className} role="alert" data-testid={testId}>
      {prefix}
      {errorMessage(error)}
    </p>
  );
}
