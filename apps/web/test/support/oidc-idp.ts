import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

/** Who the identity provider signs in next, with the claims it releases (a groups claim among them). */
export interface IdpUser {
  sub: string;
  email: string;
  name: string;
  groups: string[];
}

/**
 * A real OpenID Connect provider (`oidc-provider`) on 127.0.0.1 with one confidential client. Its login page
 * signs in `idp.user` at once (what a person typing their password would do) and consent is implied, so a test
 * drives the whole authorization code flow over HTTP by following redirects.
 */
export async function startOidcIdp({
  clientId,
  clientSecret,
  redirectUris,
}: {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}) {
  const state: { user: IdpUser } = {
    user: { sub: "u-1", email: "someone@example.test", name: "Someone", groups: [] },
  };
  let issuer = "";
  let provider: Provider;
  const users = new Map<string, IdpUser>();

  const server: Server = createServer((req, res) => {
    void (async () => {
      const match = /^\/interaction\/([^/?]+)/.exec(req.url ?? "");
      if (!match) return provider.callback()(req, res);
      try {
        const details = await provider.interactionDetails(req, res);
        const user = state.user;
        users.set(user.sub, user);
        if (details.prompt.name === "login") {
          await provider.interactionFinished(
            req,
            res,
            { login: { accountId: user.sub } },
            { mergeWithLastSubmission: false },
          );
          return;
        }
        const grant = new provider.Grant({ accountId: user.sub, clientId: String(details.params.client_id) });
        grant.addOIDCScope(String(details.params.scope));
        const grantId = await grant.save();
        await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
      } catch (err) {
        res.statusCode = 500;
        res.end(String(err));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: redirectUris,
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    scopes: ["openid", "email", "profile", "groups"],
    claims: {
      openid: ["sub"],
      email: ["email", "email_verified"],
      profile: ["name"],
      groups: ["groups"],
    },
    async findAccount(_ctx: unknown, sub: string) {
      const user = users.get(sub) ?? state.user;
      return {
        accountId: sub,
        async claims() {
          return { sub, email: user.email, email_verified: true, name: user.name, groups: user.groups };
        },
      };
    },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    cookies: { keys: ["switchboard-sso-test-cookie-key"] },
    pkce: { required: () => false },
  });
  // Plain HTTP on loopback: the provider's secure-cookie rules would otherwise refuse it.
  provider.proxy = false;

  return {
    issuer,
    state,
    /** Follows the provider's redirects (with its cookies) until one leaves it; returns that URL. */
    async authorize(url: string): Promise<string> {
      const jar = new Map<string, string>();
      let next = url;
      for (let hop = 0; hop < 10; hop += 1) {
        if (!next.startsWith(issuer)) return next;
        const res = await fetch(next, {
          redirect: "manual",
          headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") },
        });
        for (const c of res.headers.getSetCookie()) {
          const [pair] = c.split(";");
          const eq = pair!.indexOf("=");
          jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
        }
        const location = res.headers.get("location");
        if (!location) throw new Error(`the IdP answered ${res.status} without a redirect: ${await res.text()}`);
        next = new URL(location, next).toString();
      }
      throw new Error("the IdP redirected more than 10 times");
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
