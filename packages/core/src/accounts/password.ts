/**
 * The password policy (NIST SP 800-63B style): long enough, not too long to hash, and not one of the passwords
 * attackers try first. No composition rules: they make passwords harder to remember, not to guess.
 */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 128;

export interface PasswordContext {
  /** True when the password (compared in lower case) is on a list of commonly used passwords. */
  isCommon: (lowercased: string) => boolean;
  /** The account's email address, when known: its name part makes a poor password. */
  email?: string | null;
}

/** Why a password is refused, as one sentence for the person choosing it, or null when it is acceptable. */
export function passwordProblem(password: string, context: PasswordContext): string | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return `Use at least ${PASSWORD_MIN_LENGTH} characters for your password.`;
  if (length > PASSWORD_MAX_LENGTH) return `Use at most ${PASSWORD_MAX_LENGTH} characters for your password.`;
  const lower = password.toLowerCase();
  if (new Set(lower).size < 4) return "This password repeats too few characters; choose a less predictable one.";
  if (context.isCommon(lower)) return "This password is on a list of commonly used passwords; choose another.";
  const name = context.email?.split("@")[0]?.toLowerCase();
  if (name && name.length >= 4 && lower.includes(name)) return "Do not use your email address in your password.";
  return null;
}
