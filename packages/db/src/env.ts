import { databaseEnvShape } from "@switchboard/core/contracts";
import { z } from "zod";

const schema = z.object({
  DATABASE_URL: databaseEnvShape.DATABASE_URL,
  DATABASE_POOL_MAX: z.coerce.number().int().positive().default(10),
  SWITCHBOARD_ENCRYPTION_KEY: databaseEnvShape.SWITCHBOARD_ENCRYPTION_KEY.optional(),
});

export type DbEnv = z.infer<typeof schema>;

/** Every variable packages/db reads (tooling/test/readme-config.test.ts checks the README's table against it). */
export const envSchema = schema;

/** What a process that parsed its environment at start hands packages/db (see `useProcessEnv`). */
export type ProcessDbEnv = Pick<DbEnv, "DATABASE_URL" | "SWITCHBOARD_ENCRYPTION_KEY"> &
  Partial<Pick<DbEnv, "DATABASE_POOL_MAX">>;

let given: ProcessDbEnv | undefined;
let parsed: DbEnv | undefined;

/**
 * The gateway, the console and the worker parse their environment once at start (runtime's `commonEnvShape`,
 * with core's `databaseEnvShape`) and hand the database's variables over here, so packages/db reads nothing a
 * second time. Scripts and tests that hand nothing over are read from `process.env` (once, lazily).
 */
export function useProcessEnv(values: ProcessDbEnv): void {
  given = values;
  parsed = undefined;
}

/** Parsed lazily so that importing the package (e.g. during `next build`) never needs a database. */
export function dbEnv(): DbEnv {
  parsed ??= given
    ? {
        DATABASE_URL: given.DATABASE_URL,
        SWITCHBOARD_ENCRYPTION_KEY: given.SWITCHBOARD_ENCRYPTION_KEY,
        DATABASE_POOL_MAX:
          given.DATABASE_POOL_MAX ?? schema.shape.DATABASE_POOL_MAX.parse(process.env.DATABASE_POOL_MAX),
      }
    : schema.parse(process.env);
  return parsed;
}

/**
 * SWITCHBOARD_ENCRYPTION_KEY as set, for `getCipher()`. Apart from `dbEnv()`: processes that only encrypt (and tests
 * of the cipher) need no database URL. `parseEncryptionKey` says what is wrong with it.
 */
export function encryptionKeySetting(): string | undefined {
  if (given) return given.SWITCHBOARD_ENCRYPTION_KEY;
  return process.env.SWITCHBOARD_ENCRYPTION_KEY;
}
