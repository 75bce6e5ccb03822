import { createCipheriv, createDecipheriv, hash, randomBytes, timingSafeEqual } from "node:crypto";
import { EncryptionKeyError, parseEncryptionKey } from "@switchboard/core/contracts";
import { encryptionKeySetting } from "./env";

/** The key's rule is core's, where every process's environment schema reads it too. */
export { EncryptionKeyError, parseEncryptionKey };

/**
 * Encryption at rest for secret configuration values and OAuth tokens: AES-256-GCM with a random 96-bit IV per
 * value. Ciphertexts are `v1.<iv>.<tag>.<data>` (base64url), so a future key rotation can add `v2`.
 * There is deliberately no fallback key: a process without SWITCHBOARD_ENCRYPTION_KEY refuses to start.
 */
export class DecryptionError extends Error {
  override name = "DecryptionError";
}

export function generateEncryptionKey(): string {
  return randomBytes(32).toString("base64");
}

export interface Cipher {
  encrypt(plain: string): string;
  decrypt(sealed: string): string;
}

export function createCipher(key: Buffer): Cipher {
  if (key.length !== 32) throw new EncryptionKeyError("AES-256-GCM needs a 32-byte key");
  return {
    encrypt(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      const tag = cipher.getAuthTag();
      return ["v1", iv.toString("base64url"), tag.toString("base64url"), data.toString("base64url")].join(".");
    },
    decrypt(sealed) {
      const parts = sealed.split(".");
      if (parts.length !== 4 || parts[0] !== "v1") throw new DecryptionError("not a Switchboard ciphertext");
      const [, iv, tag, data] = parts as [string, string, string, string];
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
        decipher.setAuthTag(Buffer.from(tag, "base64url"));
        return Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]).toString("utf8");
      } catch (cause) {
        throw new DecryptionError("could not decrypt a stored secret (wrong SWITCHBOARD_ENCRYPTION_KEY?)", { cause });
      }
    },
  };
}

let processCipher: Cipher | undefined;

/** The cipher for this process, keyed from SWITCHBOARD_ENCRYPTION_KEY; throws a readable error without one. */
export function getCipher(): Cipher {
  processCipher ??= createCipher(parseEncryptionKey(encryptionKeySetting()));
  return processCipher;
}

/**
 * SHA-256 hex digest, for values that are only ever compared (personal access tokens). The one-shot `hash` (no
 * Hash object per call) is a third of `createHash`'s cost, and the route hashes the bearer of every request.
 */
export function sha256(value: string): string {
  return hash("sha256", value, "hex");
}

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
