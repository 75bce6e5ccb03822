import type { SupervisorEvent } from "@switchboard/core/stdio";
import type { BullJobScheduling } from "@switchboard/runtime/jobs/scheduling";
import type { Logger } from "@switchboard/runtime/logger";
import type { InstanceSecrets } from "./secrets";

/**
 * What the worker does when a hosted stdio server starts, crashes, breaks a limit or stops: logs it, queues the
 * job that records it under the instance's lock (a crash's stderr tail redacted first), and lets the instance's
 * lease and bridge sessions go once no process runs here (`releaseStdio`).
 */
export function supervisorEvents(deps: {
  logger: Logger;
  secrets: InstanceSecrets;
  jobs: BullJobScheduling;
  releaseStdio: (instanceId: string, reason?: string) => void;
}): (event: SupervisorEvent) => void {
  const { logger, secrets, jobs, releaseStdio } = deps;
  return (event: SupervisorEvent) => {
    const log = logger.child({ instanceId: event.instanceId, component: "stdio" });
    switch (event.type) {
      case "started":
        log.info({ pid: event.pid }, "stdio server started");
        return;
      case "crashed":
        log.warn(
          {
            exitCode: event.exitCode,
            signal: event.signal,
            crashesInWindow: event.crashesInWindow,
            willRestart: event.willRestart,
          },
          "stdio server crashed",
        );
        // The crash job records it (history, event) and applies the status under the instance's lock.
        // The tail is redacted before it is queued (the job payload sits in Redis); it is cut first, so a secret
        // cut in half at its start is caught as well (bounded).
        void secrets
          .text(event.instanceId, event.stderrTail.slice(-16_384), { bounded: true })
          .catch(() => "")
          .then((stderrTail) =>
            jobs.enqueueCrashed(event.instanceId, { exitCode: event.exitCode, signal: event.signal, stderrTail }),
          )
          .catch((err) => log.error({ err }, "could not enqueue crash"));
        return;
      case "permanently_failed":
        log.error(
          { crashesInWindow: event.crashesInWindow },
          "stdio server crashed too often; not restarted until an explicit restart",
        );
        releaseStdio(event.instanceId);
        return;
      case "faulted":
        // What it wrote (or left unread) broke a limit: the supervisor stopped it. The instance goes to error
        // with the limit's sentence, as a failed call would put it (the reconnect loop starts a fresh process
        // on its backoff); the job applies it under the instance's lock.
        log.warn({ limit: event.limit }, `stdio server stopped: ${event.message}`);
        void jobs
          .enqueueCallFailed({ instanceId: event.instanceId, status: "error", message: event.message })
          .catch((err) => log.error({ err }, "could not enqueue the stop of a stdio server"));
        releaseStdio(event.instanceId, event.message);
        return;
      case "idle_stopped":
        log.info("stopped idle stdio server (status and tools kept)");
        releaseStdio(event.instanceId);
        return;
      case "stopped":
        releaseStdio(event.instanceId);
        return;
    }
  };
}
