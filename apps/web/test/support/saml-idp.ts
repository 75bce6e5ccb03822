import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { inflateRawSync } from "node:zlib";
import * as samlify from "samlify";
import { selfSignedCertificate } from "./certificate";

export interface SamlUser {
  email: string;
  name: string;
  groups: string[];
}

const escape = (v: string) =>
  v.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * A SAML 2.0 identity provider on 127.0.0.1 (samlify on the IdP side): its SSO URL takes the console's
 * AuthnRequest (HTTP-Redirect binding) and answers with the auto-posting form a real IdP sends (a browser posts
 * it at once; a test reads its fields with `answer`), carrying a Response whose assertion is signed with its own
 * key. `state` bends the next answer for error tests: another
 * audience, a validity window in the past.
 */
export async function startSamlIdp() {
  const { key, cert } = selfSignedCertificate("/CN=switchboard-test-idp");
  const state: { user: SamlUser; audience: string | null; shiftMinutes: number } = {
    user: { email: "someone@example.test", name: "Someone", groups: [] },
    audience: null,
    shiftMinutes: 0,
  };
  let sp: ReturnType<typeof samlify.ServiceProvider> | null = null;
  let base = "";

  const server: Server = createServer((req, res) => {
    void (async () => {
      try {
        const url = new URL(req.url ?? "/", base);
        if (url.pathname !== "/sso") {
          res.statusCode = 404;
          return res.end("not found");
        }
        const request = url.searchParams.get("SAMLRequest");
        if (!request || !sp) {
          res.statusCode = 400;
          return res.end("This is the test IdP's sign-in URL: it needs a SAMLRequest.");
        }
        const xml = inflateRawSync(Buffer.from(request, "base64")).toString("utf8");
        const requestId = /\bID="([^"]+)"/.exec(xml)?.[1] ?? "";
        const response = await idp.createLoginResponse(
          sp,
          { extract: { request: { id: requestId } } },
          "post",
          { email: state.user.email },
          (template: string) => {
            const now = Date.now() + state.shiftMinutes * 60_000;
            const iso = (ms: number) => new Date(ms).toISOString();
            const acs = sp!.entityMeta.getAssertionConsumerService("post");
            const values: Record<string, string> = {
              ID: `_${randomBytes(16).toString("hex")}`,
              AssertionID: `_${randomBytes(16).toString("hex")}`,
              Destination: String(acs),
              Audience: state.audience ?? String(sp!.entityMeta.getEntityID()),
              SubjectRecipient: String(acs),
              Issuer: base + "/metadata",
              IssueInstant: iso(now),
              StatusCode: "urn:oasis:names:tc:SAML:2.0:status:Success",
              ConditionsNotBefore: iso(now - 60_000),
              ConditionsNotOnOrAfter: iso(now + 5 * 60_000),
              SubjectConfirmationDataNotOnOrAfter: iso(now + 5 * 60_000),
              NameIDFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
              NameID: state.user.email,
              InResponseTo: requestId,
            };
            const attribute = (name: string, vals: string[]) =>
              `<saml:Attribute Name="${name}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic">${vals
                .map((v) => `<saml:AttributeValue xsi:type="xs:string">${escape(v)}</saml:AttributeValue>`)
                .join("")}</saml:Attribute>`;
            let context = template;
            for (const [k, v] of Object.entries(values)) context = context.split(`{${k}}`).join(escape(v));
            context = context
              .replace(
                "{AuthnStatement}",
                `<saml:AuthnStatement AuthnInstant="${iso(now)}" SessionIndex="${values.AssertionID}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>`,
              )
              .replace(
                "{AttributeStatement}",
                `<saml:AttributeStatement>${attribute("email", [state.user.email])}${attribute("displayName", [state.user.name])}${attribute("memberOf", state.user.groups)}</saml:AttributeStatement>`,
              );
            return { id: values.ID!, context };
          },
        );
        const relayState = url.searchParams.get("RelayState") ?? "";
        res.setHeader("content-type", "text/html");
        res.end(
          `<form method="post" action="${escape(String((response as { entityEndpoint?: string }).entityEndpoint))}"><input type="hidden" name="SAMLResponse" value="${escape(response.context)}"/><input type="hidden" name="RelayState" value="${escape(relayState)}"/></form><script>document.forms[0].submit()</script>`,
        );
      } catch (err) {
        res.statusCode = 500;
        res.end(String(err));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const idp = samlify.IdentityProvider({
    entityID: `${base}/metadata`,
    signingCert: cert,
    privateKey: key,
    wantAuthnRequestsSigned: false,
    nameIDFormat: ["urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress"],
    singleSignOnService: [{ Binding: "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect", Location: `${base}/sso` }],
  });

  return {
    state,
    metadata: idp.getMetadata(),
    certificate: cert,
    /** The console's SP metadata, as the IdP administrator imports it. */
    trustServiceProvider(metadata: string) {
      sp = samlify.ServiceProvider({ metadata });
    },
    /** The browser at the IdP: the fields of the form it posts back to the console. */
    async answer(url: string): Promise<{ action: string; SAMLResponse: string; RelayState: string }> {
      const res = await fetch(url);
      const html = await res.text();
      if (!res.ok) throw new Error(`the IdP answered ${res.status}: ${html}`);
      const field = (name: string) =>
        (new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? "")
          .replace(/&quot;/g, '"')
          .replace(/&lt;/g, "<")
          .replace(/&gt;/g, ">")
          .replace(/&amp;/g, "&");
      const action = /action="([^"]+)"/.exec(html)?.[1] ?? "";
      return {
        action: action.replace(/&amp;/g, "&"),
        SAMLResponse: field("SAMLResponse"),
        RelayState: field("RelayState"),
      };
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
