import type { CallAdmission } from "../status";
import type { MemberInstance } from "./types";

/** The message a member sees when a call to one of their instances is not forwarded; it names the server. */
export function blockedMessage(
  instance: MemberInstance,
  admission: Extract<CallAdmission, { allowed: false }>,
): string {
  switch (admission.reason) {
    case "requires_reauth":
      return `${instance.name} needs you to re-authenticate. Open the dashboard and re-authenticate ${instance.name}, then try again.`;
    case "awaiting_user_config":
      return `${instance.name} is not configured for you yet. Open the dashboard and fill in your settings for ${instance.name}, then try again.`;
    default:
      return `${instance.name}: ${admission.message}`;
  }
}
