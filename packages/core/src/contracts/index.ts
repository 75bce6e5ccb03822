/**
 * What the processes agree on: the jobs (one definition each: name, payload, options) and their ids (web produces,
 * the worker consumes), the stdio bridge (the worker serves, the MCP route calls), Redis keys and pub/sub channels,
 * how REDIS_URL is read, and the database's variables (DATABASE_URL, SWITCHBOARD_ENCRYPTION_KEY).
 */
export * from "./jobs/definitions";
export * from "./jobs/names";
export * from "./jobs/options";
export * from "./jobs/payloads";
export * from "./jobs/ids";
export * from "./jobs/maintenance";
export * from "./bridge";
export * from "./redis";
export * from "./redis-url";
export * from "./workers";
export * from "./database-env";
