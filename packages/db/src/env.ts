import { z } from "zod";

const schema = z.object({
  DATABASE_URL: z
    .string({ error: "DATABASE_URL is not set (e.g. postgresql://postgres@127.0.0.1:5432/switchboard)" })
    .regex(/^postgres(ql)?:\/\//, "DATABASE_URL must be a postgresql:// URL"),
  DATABASE_POOL_MAX: z.coerce.number().int().positive().default(10),
  /** Validated where it is used (`parseEncryptionKey`, which says what is wrong with it). */
  SWITCHBOARD_ENCRYPTION_KEY: z.string().optional(),
});

export type DbEnv = z.infer<typeof schema>;

/** Every variable packages/db reads (tooling/test/readme-config.test.ts checks the README's table against it). */
export const envSchema = schema;

let parsed: DbEnv | undefined;

/** Parsed lazily so that importing the package (e.g. during `next build`) never needs a database. */
export function dbEnv(): DbEnv {
  parsed ??= schema.parse(process.env);
  return parsed;
}

/**
 * SWITCHBOARD_ENCRYPTION_KEY as set, for `getCipher()`. Apart from `dbEnv()`: processes that only encrypt (and tests
 * of the cipher) need no database URL. `parseEncryptionKey` says what is wrong with it.
 */
export function encryptionKeySetting(): string | undefined {
  return schema.shape.SWITCHBOARD_ENCRYPTION_KEY.parse(process.env.SWITCHBOARD_ENCRYPTION_KEY);
}
