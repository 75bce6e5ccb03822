import "server-only";
import { logger } from "@switchboard/runtime/logger";
import { redis } from "@switchboard/runtime/redis";
import { redisKeys } from "@switchboard/core/contracts";
import { sandboxStatusReportSchema, type SandboxStatusReport } from "@switchboard/core/sandbox";
import { env } from "@switchboard/runtime/env";

/**
 * How the worker runs stdio servers, as it reported at start (apps/worker sandbox/status.ts); null when no worker
 * reported yet or Redis does not answer (the console then says nothing rather than something wrong).
 */
export async function readSandboxStatus(): Promise<SandboxStatusReport | null> {
  try {
    const raw = await redis().get(redisKeys.sandboxStatus(env().REDIS_PREFIX));
    if (!raw) return null;
    const parsed = sandboxStatusReportSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  } catch (err) {
    logger.warn({ err }, "could not read the stdio sandbox status");
    return null;
  }
}
