import { jobDefinition, type JobName } from "./definitions";

/**
 * The single BullMQ queue every instance job goes through. One queue keeps one ordered view of an instance's
 * work (discovery, reconnect, health, triggers) and one worker pool; job names tell the processors apart.
 *
 * The braces are a Redis Cluster hash tag: BullMQ's scripts touch several keys of a queue at once
 * (`<prefix>:{instances}:wait`, `...:active`, `...:<jobId>`), and a cluster runs a script only when all its keys
 * hash to one slot. Redis hashes only the part in braces, so every key of the queue lands in one slot.
 */
export const INSTANCE_QUEUE = "{instances}";

export function isJobName(name: string): name is JobName {
  return jobDefinition(name) !== undefined;
}
