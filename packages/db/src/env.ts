import { z } from "zod";

const schema = z.object({
  DATABASE_URL: z
    .string({ error: "DATABASE_URL is not set (e.g. postgresql://postgres@127.0.0.1:5432/switchboard)" })
    .regex(/^postgres(ql)?:\/\//, "DATABASE_URL must be a postgresql:// URL"),
  DATABASE_POOL_MAX: z.coerce.number().int().positive().default(10),
});

export type DbEnv = z.infer<typeof schema>;

let parsed: DbEnv | undefined;

/** Parsed lazily so that importing the package (e.g. during `next build`) never needs a database. */
export function dbEnv(): DbEnv {
  parsed ??= schema.parse(process.env);
  return parsed;
}
