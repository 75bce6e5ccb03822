import { Queue, QueueEvents } from "bullmq";
import type { ResolvedLaunch } from "@switchboard/core/config";
import { humanizeError } from "@switchboard/core/errors";
import { INSTANCE_QUEUE, JOB_NAMES, jobPayload } from "@switchboard/core/contracts";
import { CONNECTION_TEST_TIMEOUT_MS, failedConnectionTest, type ConnectionTestResult } from "@switchboard/core/probe";
import { getCipher } from "@switchboard/db/crypto";
import { env } from "@switchboard/runtime/env";
import { jobOptions } from "@switchboard/runtime/jobs/options";
import { queueConnection } from "@switchboard/runtime/redis-client";

/** The worker's probe has its own bound; this one covers a busy queue on top (and a worker that is not there). */
const WAIT_MS = CONNECTION_TEST_TIMEOUT_MS + 15_000;

const failed = (message: string, detail: string | null = null) => failedConnectionTest("stdio", message, detail);

/**
 * The console never starts a process: a local command's test is a worker job (connection.test) with the launch
 * sealed, and the console waits for its return value, bounded.
 */
export async function testStdioThroughWorker({
  teamId,
  launch,
  envKeys,
}: {
  teamId: string;
  launch: ResolvedLaunch;
  envKeys: string[];
}): Promise<ConnectionTestResult> {
  const queue = new Queue(INSTANCE_QUEUE, {
    connection: queueConnection(env().REDIS_URL, "producer", "web-connection-test"),
    prefix: env().REDIS_PREFIX,
  });
  const events = new QueueEvents(INSTANCE_QUEUE, {
    // Its reads block (XREAD BLOCK): a worker-role connection, which waits through a Redis restart.
    connection: queueConnection(env().REDIS_URL, "worker", "web-connection-test"),
    prefix: env().REDIS_PREFIX,
  });
  try {
    await events.waitUntilReady();
    const job = await queue.add(
      JOB_NAMES.connectionTest,
      jobPayload(JOB_NAMES.connectionTest, {
        teamId,
        sealedLaunch: getCipher().encrypt(JSON.stringify(launch)),
        envKeys,
      }),
      jobOptions(JOB_NAMES.connectionTest),
    );
    return (await job.waitUntilFinished(events, WAIT_MS)) as ConnectionTestResult;
  } catch (err) {
    const text = err instanceof Error ? err.message : String(err);
    if (/timed out before finishing/i.test(text))
      return failed(`No worker answered within ${Math.round(WAIT_MS / 1000)} s: check that the worker is running.`);
    const human = humanizeError(err);
    return failed(`The worker could not run the test: ${human.summary}`, human.detail);
  } finally {
    await events.close().catch(() => {});
    await queue.close().catch(() => {});
  }
}
