import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "../src/logger";

describe("createLogger", () => {
  afterEach(() => vi.restoreAllMocks());

  it("cuts what an SSO failure carries from the line it writes: client secret, SAML response, assertion", () => {
    const lines: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    const log = createLogger("test", "info");
    const planted = {
      oidcClientSecret: "oidc-client-secret-9f8e7d",
      SAMLResponse: "PHNhbWxwOlJlc3BvbnNlIHNpZ25lZD0ieWVzIi8+",
      assertion: "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJl",
    };
    log.warn({ sso: { providerId: "okta", ...planted }, err: { message: "sign-in failed" } }, "SSO sign-in failed");
    const written = lines.join("");
    expect(written).toContain("SSO sign-in failed");
    expect(written).toContain("okta");
    for (const value of Object.values(planted)) expect(written).not.toContain(value);
    expect(written.match(/\[redacted\]/g)).toHaveLength(3);
  });
});
