import { getDb } from "@switchboard/db/client";
import { databaseChecks } from "@switchboard/db/health";
import { logger } from "@switchboard/runtime/logger";
import { Readiness, redisCheck } from "@switchboard/runtime/health";
import { redis } from "@switchboard/runtime/redis";

let readiness: Readiness | undefined;

/** The gateway's readiness: PostgreSQL, the migrations and Redis, through the clients its requests use. */
export function gatewayReadiness(): Readiness {
  readiness ??= new Readiness([...databaseChecks(getDb), redisCheck(redis)], {
    logger: logger.child({ component: "readiness" }),
  });
  return readiness;
}
