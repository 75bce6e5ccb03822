import { z } from "zod";

const schema = z.object({
  DATABASE_URL: z
    .string({ error: "DATABASE_URL is not set (e.g. postgresql://postgres@127.0.0.1:5432/switchboard)" })
    .regex(/^postgres(ql)?:\/\//, "DATABASE_URL must be a postgresql:// URL"),
  DATABASE_POOL_MAX: z.coerce.number().int().positive().default(10),
});

export type DbEnv = z.infer<typeof schema>;

/** The variables the schema knows (the README's configuration table is checked against them). */
export const dbEnvVariables = [...Object.keys(schema.shape), "SWITCHBOARD_ENCRYPTION_KEY"];

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
  return process.env.SWITCHBOARD_ENCRYPTION_KEY;
}
