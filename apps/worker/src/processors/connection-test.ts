import { UnrecoverableError } from "bullmq";
import type { ResolvedLaunch } from "@switchboard/core/config";
import type { JobPayload } from "@switchboard/core/contracts";
import type { ConnectionTestResult } from "@switchboard/core/probe";
import type { JobContext, WorkerDeps } from "../deps";

export type ConnectionTestDeps = Pick<WorkerDeps, "probeStdio" | "unseal">;

/**
 * "Test connection" of a local command: the console sealed the resolved launch; the worker opens it, checks the
 * deployment's stdio rules again, runs the command once in a throwaway sandbox and returns what it found. The
 * result is the job's return value (redacted of the launch's values by the probe).
 */
export async function processConnectionTest(
  payload: JobPayload<"connection.test">,
  ctx: JobContext,
  deps: ConnectionTestDeps,
): Promise<ConnectionTestResult> {
  if (!deps.probeStdio || !deps.unseal) throw new UnrecoverableError("this worker does not test connections");
  let launch: ResolvedLaunch;
  try {
    launch = JSON.parse(deps.unseal(payload.sealedLaunch)) as ResolvedLaunch;
  } catch {
    throw new UnrecoverableError("the connection test's launch could not be opened");
  }
  if (launch.transport !== "stdio") throw new UnrecoverableError("only local commands are tested by the worker");
  const result = await deps.probeStdio({ teamId: payload.teamId, launch, envKeys: payload.envKeys });
  ctx.logger.info({ ok: result.ok, tools: result.toolCount }, "connection test done");
  return result;
}
