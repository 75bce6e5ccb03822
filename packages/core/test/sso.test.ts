import { describe, expect, it } from "vitest";
import { domainOwned, emailDomain, parseSsoDomains, ssoErrorSentence } from "../src/sso";

describe("SSO domains", () => {
  it("reads a comma- or space-separated list, lower case, without duplicates or a leading @", () => {
    expect(parseSsoDomains("Acme.com, @acme.co.uk acme.com")).toEqual({ domains: ["acme.com", "acme.co.uk"] });
  });

  it("refuses an empty list and something that is not a domain, in one sentence", () => {
    expect(parseSsoDomains(" , ")).toEqual({ problem: "Enter at least one email domain, such as example.com." });
    expect(parseSsoDomains("acme.com, http://evil")).toMatchObject({
      problem: expect.stringMatching(/is not an email domain/),
    });
  });

  it("owns subdomains of its domains, never a domain that merely ends the same", () => {
    expect(domainOwned("eu.acme.com", ["acme.com"])).toBe(true);
    expect(domainOwned("notacme.com", ["acme.com"])).toBe(false);
    expect(emailDomain("Ada@Acme.COM")).toBe("acme.com");
    expect(emailDomain("no-at-sign")).toBeNull();
  });
});

describe("SSO errors as one sentence", () => {
  it.each([
    ["invalid_saml_response", "Audience mismatch", /meant for another application/],
    ["invalid_provider", "token_not_verified", /meant for another application/],
    ["invalid_saml_response", "SAML assertion has expired (NotOnOrAfter ...)", /outside its validity window/],
    ["NOT_FOUND", "No provider found for the issuer", /No single sign-on provider/],
    ["discovery_failed", "fetch failed", /could not reach your identity provider/],
    ["SSO_EMAIL_DOMAIN", null, /outside the domains it owns/],
    ["saml_error", "Invalid SAML response", /could not be verified/],
    ["something_new", null, /^Single sign-on did not work/],
  ])("%s / %s", (code, description, sentence) => {
    const text = ssoErrorSentence(code, description);
    expect(text).toMatch(sentence);
    expect(text.split(/[.;:] /).length).toBeLessThanOrEqual(3);
    expect(text).not.toContain(code);
  });
});
