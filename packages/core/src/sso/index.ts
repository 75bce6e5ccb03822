/**
 * Single sign-on rules shared by the console's server and its pages: which email domains a provider owns, and the
 * one sentence a person reads when a sign-in through their identity provider fails.
 */

const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** The domains of a comma- or space-separated list, lower case, without duplicates; or why the list is refused. */
export function parseSsoDomains(input: string): { domains: string[] } | { problem: string } {
  const parts = input
    .split(/[\s,]+/)
    .map((d) => d.trim().toLowerCase().replace(/^@/, ""))
    .filter(Boolean);
  if (parts.length === 0) return { problem: "Enter at least one email domain, such as example.com." };
  if (parts.length > 20) return { problem: "A provider can own at most 20 email domains." };
  const bad = parts.find((d) => !DOMAIN.test(d));
  if (bad !== undefined) return { problem: `"${bad.slice(0, 60)}" is not an email domain (such as example.com).` };
  return { domains: [...new Set(parts)] };
}

/** The domain of an address, lower case, or null for something that is not an address. */
export function emailDomain(email: string): string | null {
  const at = email.lastIndexOf("@");
  if (at < 1 || at === email.length - 1) return null;
  return email
    .slice(at + 1)
    .trim()
    .toLowerCase();
}

/** Whether a domain is one of the list or below one of them (`eu.example.com` under `example.com`), as Better Auth matches. */
export function domainOwned(domain: string, owned: readonly string[]): boolean {
  const d = domain.toLowerCase();
  return owned.some((o) => d === o || d.endsWith(`.${o}`));
}

/** What went wrong in an SSO sign-in, in one sentence; the raw code and description stay behind a disclosure. */
export function ssoErrorSentence(code: string, description?: string | null): string {
  const detail = `${code} ${description ?? ""}`.toLowerCase();
  if (/audience|token_not_verified|invalid_audience/.test(detail))
    return "Your identity provider's answer was meant for another application: check that the client id (or SAML audience) configured in Switchboard matches the provider's.";
  if (/expired|not yet valid|clock|notbefore|notonorafter|iat|nbf/.test(detail))
    return "Your identity provider's answer was outside its validity window: it expired, or the clocks of the provider and Switchboard disagree.";
  if (/no provider found|unknown_domain|provider not found|invalid_provider.*not found/.test(detail))
    return "No single sign-on provider is set up for that email domain; sign in with your password or ask your administrator.";
  if (/discovery|unreachable|fetch failed|econnrefused|timeout|timed out/.test(detail))
    return "Switchboard could not reach your identity provider; try again in a moment, or ask your administrator to test the provider.";
  if (/sso_email_domain/.test(detail))
    return "Your identity provider signed you in with an address outside the domains it owns here, so Switchboard refused it.";
  if (/replay/.test(detail)) return "That sign-in answer was already used; start the sign-in again.";
  if (/signature|invalid_saml_response|saml/.test(detail))
    return "Your identity provider's answer could not be verified; ask your administrator to check the provider's certificate.";
  if (/account_not_linked|unable_to_link/.test(detail))
    return "An account with this address exists and could not be linked to your identity provider; ask your administrator.";
  if (/access_denied/.test(detail)) return "Your identity provider did not let you sign in to Switchboard.";
  if (/invalid_state|state/.test(detail)) return "The sign-in took too long or was started elsewhere; start it again.";
  return "Single sign-on did not work; start it again, and if it keeps failing, ask your administrator.";
}
