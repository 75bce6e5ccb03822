import { getCipher, type Cipher } from "./crypto";

/**
 * An SSO provider's OIDC settings are stored as Better Auth's JSON, with the client secret inside. The secret is
 * sealed there (`v1.…`, the same AES-256-GCM as every stored secret) and opened only for Better Auth's SSO plugin,
 * which reads the row through the auth client (auth-client.ts).
 */
const SEALED = /^v1\.[\w-]+\.[\w-]+\.[\w-]*$/;

function mapSecret(config: string | null | undefined, f: (secret: string) => string): string | null | undefined {
  if (typeof config !== "string") return config;
  let parsed: unknown;
  try {
    parsed = JSON.parse(config);
  } catch {
    return config;
  }
  if (!parsed || typeof parsed !== "object") return config;
  const value = parsed as { clientSecret?: unknown };
  if (typeof value.clientSecret !== "string" || value.clientSecret === "") return config;
  return JSON.stringify({ ...value, clientSecret: f(value.clientSecret) });
}

/** The OIDC settings JSON with its client secret sealed (left as it is when already sealed). */
export function sealOidcConfig(config: string | null | undefined, cipher: Cipher = getCipher()) {
  return mapSecret(config, (secret) => (SEALED.test(secret) ? secret : cipher.encrypt(secret)));
}

/** The OIDC settings JSON with its client secret opened, for the SSO plugin only. */
export function openOidcConfig(config: string | null | undefined, cipher: Cipher = getCipher()) {
  return mapSecret(config, (secret) => (SEALED.test(secret) ? cipher.decrypt(secret) : secret));
}
