import { z } from "zod";

import { JOB_DEFINITIONS, jobDefinition, type JobName, type JobPayload } from "./definitions";

export type ParsedJob = { [N in JobName]: { name: N; payload: JobPayload<N> } }[JobName];

export type ParseJobResult =
  | { success: true; job: ParsedJob }
  | { success: false; reason: "unknown_job"; error: string }
  | { success: false; reason: "invalid_payload"; error: string };

/** Parses a job by name. Never throws: the worker turns a failure into a single non-retried failure. */
export function parseJob(name: string, data: unknown): ParseJobResult {
  const definition = jobDefinition(name);
  if (!definition) return { success: false, reason: "unknown_job", error: `Unknown job name: ${name}` };
  const parsed = definition.schema.safeParse(data);
  if (!parsed.success) {
    return { success: false, reason: "invalid_payload", error: `${name}: ${z.prettifyError(parsed.error)}` };
  }
  return { success: true, job: { name, payload: parsed.data } as ParsedJob };
}

/** Validates a payload on the producer side; throws on a bug in the caller. */
export function jobPayload<N extends JobName>(name: N, data: JobPayload<N>): JobPayload<N> {
  return JOB_DEFINITIONS[name].schema.parse(data) as JobPayload<N>;
}
