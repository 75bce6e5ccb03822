import type { RedisClient as Redis } from "@switchboard/runtime/redis-client";
import { redisKeys } from "@switchboard/core/contracts";
import type { SandboxStatusReport } from "@switchboard/core/sandbox";
import type { ReservedPort, SandboxPolicy } from "@switchboard/core/sandbox";
import type { SandboxStatus } from "./index";

/**
 * Tells the console how stdio servers run on this deployment (read by the console under the same key): the
 * last worker to start wins, which is right for the usual single worker and for workers configured alike.
 */
export async function publishSandboxStatus(
  redis: Redis,
  prefix: string,
  status: SandboxStatus,
  defaults?: SandboxPolicy,
  maxDiskMb?: number,
  loopback?: { operatorPorts: number[]; reserved: ReservedPort[] },
): Promise<void> {
  const report: SandboxStatusReport = {
    ...status,
    ...(defaults && { defaults }),
    ...(maxDiskMb !== undefined && { maxDiskMb }),
    ...(loopback && { loopback }),
    reportedAt: new Date().toISOString(),
  };
  await redis.set(redisKeys.sandboxStatus(prefix), JSON.stringify(report));
}
