import type { Server } from "node:http";
import type { Db } from "@switchboard/db/client";
import { databaseChecks } from "@switchboard/db/health";
import { Readiness, redisCheck, startHealthServer } from "@switchboard/runtime/health";
import type { Logger } from "@switchboard/runtime/logger";
import { createRedis } from "@switchboard/runtime/redis-client";
import type { WorkerEnv } from "./env";

export interface WorkerHealth {
  readiness: Readiness;
  server: Server & { port: number };
  close(): Promise<void>;
}

/**
 * The worker's `/healthz` and `/readyz` on WORKER_HEALTH_PORT (every address): PostgreSQL, Redis and the
 * migrations, the same checks as the gateway's, and that the worker has started taking jobs. Undefined when the
 * port is 0 (off).
 */
export async function startWorkerHealth(options: {
  env: Pick<WorkerEnv, "WORKER_HEALTH_PORT" | "REDIS_URL">;
  db: Db;
  logger: Logger;
  started: () => boolean;
}): Promise<WorkerHealth | undefined> {
  const { env, db, logger } = options;
  if (env.WORKER_HEALTH_PORT === 0) return undefined;
  const log = logger.child({ component: "health" });
  // Its own connection: a probe must not queue behind the worker's blocking reads or its own reconnects.
  const redis = createRedis(env.REDIS_URL, { name: "worker-health", logger: log });
  const readiness = new Readiness(
    [
      ...databaseChecks(() => db),
      redisCheck(() => redis),
      {
        name: "worker",
        failure: "The worker has not started",
        run: async () => (options.started() ? undefined : "The worker is starting."),
      },
    ],
    { logger: log },
  );
  const server = await startHealthServer({ host: "0.0.0.0", port: env.WORKER_HEALTH_PORT, readiness }).catch(
    async (error: unknown) => {
      redis.disconnect();
      throw error;
    },
  );
  log.info({ port: server.port }, "health endpoints listening");
  return {
    readiness,
    server,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      redis.disconnect();
    },
  };
}
