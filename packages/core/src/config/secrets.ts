export const REDACTED = "[redacted]";

/**
 * Deep copy of a JSON value in which every string equal to, or containing, one of `secretValues` is replaced
 * by "[redacted]". Used before request and response bodies reach the request log. Empty secrets are ignored
 * (they would match every string). Object keys are kept as they are.
 */
export function redactSecrets<T>(obj: T, secretValues: readonly string[]): T {
  const secrets = secretValues.filter((s) => s.length > 0);
  const walk = (value: unknown): unknown => {
    if (typeof value === "string") return secrets.some((s) => value.includes(s)) ? REDACTED : value;
    if (Array.isArray(value)) return value.map(walk);
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
    }
    return value;
  };
  return walk(obj) as T;
}

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
