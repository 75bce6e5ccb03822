import { z } from "zod";

/**
 * How every process reads the database's variables: DATABASE_URL, and SWITCHBOARD_ENCRYPTION_KEY (the key of
 * what is stored encrypted in it: the console encrypts secret config values and tokens, the worker and the
 * gateway decrypt them). The processes' schemas (runtime's `commonEnvShape`, the worker's) and packages/db's own
 * (for scripts and tests that parse no process schema) use these rules; none restates them.
 */
export class EncryptionKeyError extends Error {
  override name = "EncryptionKeyError";
}

/** The 32-byte key from SWITCHBOARD_ENCRYPTION_KEY (64 hex characters or base64); says what is wrong with it. */
export function parseEncryptionKey(raw: string | undefined): Buffer {
  if (!raw) {
    throw new EncryptionKeyError(
      "SWITCHBOARD_ENCRYPTION_KEY is not set. Generate one with `openssl rand -base64 32` and set it in the environment.",
    );
  }
  const trimmed = raw.trim();
  const key = /^[0-9a-f]{64}$/i.test(trimmed) ? Buffer.from(trimmed, "hex") : Buffer.from(trimmed, "base64");
  if (key.length !== 32) {
    throw new EncryptionKeyError(
      `SWITCHBOARD_ENCRYPTION_KEY must be 32 bytes, as 64 hex characters or base64 (got ${key.length} bytes).`,
    );
  }
  return key;
}

const validKey = (raw: string, ctx: z.RefinementCtx) => {
  try {
    parseEncryptionKey(raw);
  } catch (err) {
    ctx.addIssue({ code: "custom", message: (err as Error).message });
  }
};

export const databaseEnvShape = {
  DATABASE_URL: z
    .string({ error: "DATABASE_URL is not set (e.g. postgresql://postgres@127.0.0.1:5432/switchboard)" })
    .regex(/^postgres(ql)?:\/\//, "DATABASE_URL must be a postgresql:// URL"),
  /** The same value in every process: the console encrypts secret config values with it, the worker decrypts them. */
  SWITCHBOARD_ENCRYPTION_KEY: z
    .string({ error: "SWITCHBOARD_ENCRYPTION_KEY is not set (generate one with `openssl rand -base64 32`)" })
    .superRefine(validKey),
};
