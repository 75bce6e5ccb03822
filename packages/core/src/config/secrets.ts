/** What a secret value is replaced with wherever it is redacted (see `Redactor` in ./redact). */
export const REDACTED = "[redacted]";

const MASK = "••••••";

/**
 * Display form of a secret: "••••••f3a9" (last 4 characters) when it is at least 12 long, so a member can tell
 * keys apart without the tail giving away a useful part; shorter secrets are fully masked, with a fixed length
 * that does not reveal theirs.
 */
export function maskSecret(value: string): string {
  if (value.length >= 12) return `${MASK}${value.slice(-4)}`;
  return `${MASK}••••`;
}
