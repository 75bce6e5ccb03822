import type { DbTx } from "../client";
import type { Cipher } from "../crypto";

/**
 * Every secret value in scope for one instance, decrypted (in memory only, to build its `Redactor`): the
 * team-tier and member-tier values of secret fields (and any stored encrypted), the member's OAuth access and
 * refresh tokens, and the installation's OAuth client secret (pre-registered or from dynamic registration).
 * An instance that no longer exists has none.
 */
export async function loadInstanceSecretValues(db: DbTx, cipher: Cipher, instanceId: string): Promise<string[]> {
  const row = await db.instance.findUnique({
    where: { id: instanceId },
    select: {
      values: { select: { key: true, value: true, encrypted: true } },
      oauthToken: { select: { accessTokenEnc: true, refreshTokenEnc: true } },
      installation: {
        select: {
          values: { select: { key: true, value: true, encrypted: true } },
          oauthClientSecretEnc: true,
          oauthClientInfoEnc: true,
          template: { select: { fields: { where: { secret: true }, select: { key: true } } } },
        },
      },
    },
  });
  if (!row) return [];
  const secretKeys = new Set(row.installation.template.fields.map((f) => f.key));
  const out: string[] = [];
  const decrypt = (enc: string | null | undefined) => {
    if (!enc) return;
    try {
      out.push(cipher.decrypt(enc));
    } catch {
      // A value that no longer decrypts (key rotated) cannot leak in clear either.
    }
  };
  for (const v of [...row.installation.values, ...row.values]) {
    if (v.encrypted) decrypt(v.value);
    else if (secretKeys.has(v.key)) out.push(v.value);
  }
  decrypt(row.oauthToken?.accessTokenEnc);
  decrypt(row.oauthToken?.refreshTokenEnc);
  decrypt(row.installation.oauthClientSecretEnc);
  if (row.installation.oauthClientInfoEnc) {
    try {
      const info = JSON.parse(cipher.decrypt(row.installation.oauthClientInfoEnc)) as { client_secret?: unknown };
      if (typeof info.client_secret === "string") out.push(info.client_secret);
    } catch {
      // unreadable registration: nothing to add
    }
  }
  return out;
}
