export const SIGNUP_MODES = ["invite_only", "open"] as const;
export type SignupMode = (typeof SIGNUP_MODES)[number];

export type SignupDecision = { allowed: true; becomesDeploymentOwner: boolean } | { allowed: false; reason: string };

export const INVITE_ONLY_MESSAGE =
  "Sign-up on this Switchboard is by invitation only: ask a team admin to invite your email address.";

/**
 * Who may create an account. The first account (no deployment owner yet) always may, and becomes the
 * deployment's owner; after that, `open` lets anyone in and `invite_only` only an email with a pending,
 * unexpired invitation to a team.
 */
export function decideSignup(input: {
  mode: SignupMode;
  deploymentHasOwner: boolean;
  hasPendingInvitation: boolean;
}): SignupDecision {
  if (!input.deploymentHasOwner) return { allowed: true, becomesDeploymentOwner: true };
  if (input.mode === "open" || input.hasPendingInvitation) return { allowed: true, becomesDeploymentOwner: false };
  return { allowed: false, reason: INVITE_ONLY_MESSAGE };
}

/** The operator's `SIGNUP_MODE` (`invite-only` | `open`) as stored; the env spelling uses a dash. */
export function signupModeFromEnv(value: string | undefined): SignupMode | undefined {
  if (value === undefined || value === "") return undefined;
  if (value === "invite-only" || value === "invite_only") return "invite_only";
  if (value === "open") return "open";
  return undefined;
}
