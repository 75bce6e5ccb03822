import { z } from "zod";
import { commonEnvShape, parseEnv } from "./env-schema";
import { metricsEnvShape } from "./metrics-server";

export { commonEnvShape, InvalidEnvError, parseEnv } from "./env-schema";

/**
 * The environment of the gateway and its console, parsed once (at server start, from instrumentation.ts) and read from here only.
 * Nothing is parsed at import so that `next build` runs without a database or secrets.
 */
const schema = z.object({
  ...commonEnvShape,
  APP_URL: z
    .url("APP_URL must be the console's public URL, e.g. http://localhost:3000")
    .default("http://localhost:3000"),
  BETTER_AUTH_SECRET: z
    .string({ error: "BETTER_AUTH_SECRET is not set (generate one with `openssl rand -base64 32`)" })
    .min(32, "BETTER_AUTH_SECRET must be at least 32 characters"),
  /** Better Auth's sign-in/sign-up rate limit (on in production). Only the e2e suite, which signs up dozens of
   * accounts from one address, turns it off. */
  AUTH_RATE_LIMIT: z.enum(["on", "off"]).default("on"),
  /** Who may create an account. Unset: the deployment owners' choice in the console (invite-only until they
   * change it). Set: this value applies and the console shows it as fixed by the operator. */
  SIGNUP_MODE: z.enum(["invite-only", "open"], { error: "SIGNUP_MODE must be invite-only or open" }).optional(),
  /** Any worker's internal bridge; the route goes to the lease holder when one holds the stdio instance. */
  BRIDGE_URL: z.url().default("http://127.0.0.1:7410"),
  /** Shared with the workers; without it stdio servers cannot be reached from the MCP route. */
  BRIDGE_SECRET: z.string().min(32, "BRIDGE_SECRET must be at least 32 characters").optional(),
  /** MCP sessions one token may hold open (across gateway processes); past it the oldest is closed. */
  MCP_MAX_SESSIONS_PER_TOKEN: z.coerce
    .number()
    .int()
    .min(1, "MCP_MAX_SESSIONS_PER_TOKEN must be at least 1")
    .default(50),
  /** MCP sessions one member of a team may hold open over all their tokens; past it the oldest is closed. */
  MCP_MAX_SESSIONS_PER_MEMBER: z.coerce
    .number()
    .int()
    .min(1, "MCP_MAX_SESSIONS_PER_MEMBER must be at least 1")
    .default(200),
  /** New MCP sessions one token may open per minute (across gateway processes); past it initialize answers 429. */
  MCP_SESSIONS_PER_MINUTE_PER_TOKEN: z.coerce
    .number()
    .int()
    .min(1, "MCP_SESSIONS_PER_MINUTE_PER_TOKEN must be at least 1")
    .default(120),
  /** New MCP sessions one member of a team may open per minute over all their tokens; past it initialize answers 429. */
  MCP_SESSIONS_PER_MINUTE_PER_MEMBER: z.coerce
    .number()
    .int()
    .min(1, "MCP_SESSIONS_PER_MINUTE_PER_MEMBER must be at least 1")
    .default(300),
  /** An MCP session unused this long is forgotten (its client starts a new one, as the specification says). */
  MCP_SESSION_IDLE_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(1, "MCP_SESSION_IDLE_TTL_SECONDS must be at least 1")
    .default(3600),
  /** How long one attempt of a proxied call may take (ms); held while the client answers the upstream's question. */
  MCP_CALL_TIMEOUT_MS: z.coerce.number().int().min(100, "MCP_CALL_TIMEOUT_MS must be at least 100").default(30_000),
  /** How long a relayed elicitation, sampling or roots request waits for the member's client (ms). */
  MCP_CLIENT_REQUEST_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100, "MCP_CLIENT_REQUEST_TIMEOUT_MS must be at least 100")
    .default(600_000),
  /** Account mail (email verification, password reset) goes out through this SMTP server, e.g.
   * smtp://user:pass@mail.example.com:587 or smtps://...; without it the links are written to the log. */
  SMTP_URL: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z
      .string()
      .regex(/^smtps?:\/\//, "SMTP_URL must be an smtp:// or smtps:// URL")
      .optional(),
  ),
  MAIL_FROM: z.string().min(3).default("Switchboard <switchboard@localhost>"),
  /** Extra Host values the MCP route accepts besides APP_URL's (comma-separated); an Origin naming one is accepted too. */
  MCP_ALLOWED_HOSTS: z
    .string()
    .default("")
    .transform((v) =>
      v
        .split(",")
        .map((h) => h.trim())
        .filter(Boolean),
    ),
  /** MCP sessions one gateway process keeps in memory; past it the least recently used are dropped (Redis keeps them). */
  MCP_MAX_LIVE_SESSIONS: z.coerce.number().int().min(1, "MCP_MAX_LIVE_SESSIONS must be at least 1").default(5_000),
  /** Where the gateway listens (the MCP route, and the console it forwards to). */
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default("0.0.0.0"),
  /** The Next child's port on 127.0.0.1; 0 picks a free one. */
  NEXT_INTERNAL_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  ...metricsEnvShape,
  /** The gateway's own /metrics port on METRICS_HOST (off when unset; see metrics-server.ts). */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
});

export type WebEnv = z.infer<typeof schema>;

/** Every variable the gateway and its console read (tooling/test/readme-config.test.ts checks the README's table against it). */
export const envSchema = schema;

let parsed: WebEnv | undefined;

export function env(): WebEnv {
  parsed ??= parseEnv(schema, process.env, "web app");
  return parsed;
}

/** Parse again on the next `env()`: for tests that change a variable after the process has read it. */
export function reloadEnv(): void {
  parsed = undefined;
}

/**
 * NODE_ENV before the .env files are loaded: server.ts needs it to choose which files to load (as `next start`
 * and `next dev` do), and then parses everything with `env()`.
 */
export function startsInProduction(): boolean {
  return process.env.NODE_ENV === "production";
}

/**
 * The log level alone, for the logger, which is created when its module is imported: `next build` imports it
 * without the database or secrets that `env()` requires.
 */
export function logLevel(): WebEnv["LOG_LEVEL"] {
  return schema.shape.LOG_LEVEL.parse(process.env.LOG_LEVEL);
}
