import { env } from "../env";
import { createInstanceQueueProducer, type JobProducer } from "./producer";

export { createJobProducer, createInstanceQueueProducer, type JobProducer } from "./producer";

// Kept on globalThis for `next dev`: hot reload re-evaluates this module in the console, and a second producer
// would leak the first one's Redis connections. One of the four (see CONTRIBUTING).
const globalForJobs = globalThis as unknown as { __switchboardJobs?: JobProducer };

/** The process-wide producer, created on first use (never at import: `next build` has no Redis). */
export function jobs(): JobProducer {
  globalForJobs.__switchboardJobs ??= createInstanceQueueProducer({
    redisUrl: env().REDIS_URL,
    prefix: env().REDIS_PREFIX,
  });
  return globalForJobs.__switchboardJobs;
}

export async function closeJobs(): Promise<void> {
  const producer = globalForJobs.__switchboardJobs;
  globalForJobs.__switchboardJobs = undefined;
  await producer?.close();
}

export const enqueueInstallationCreated: JobProducer["enqueueInstallationCreated"] = (input) =>
  jobs().enqueueInstallationCreated(input);
export const enqueueConfigChanged: JobProducer["enqueueConfigChanged"] = (input) => jobs().enqueueConfigChanged(input);
export const enqueueForceReconnect: JobProducer["enqueueForceReconnect"] = (input) =>
  jobs().enqueueForceReconnect(input);
export const enqueueRestart: JobProducer["enqueueRestart"] = (input) => jobs().enqueueRestart(input);
export const enqueueInstallationRemoved: JobProducer["enqueueInstallationRemoved"] = (input) =>
  jobs().enqueueInstallationRemoved(input);
export const enqueueMemberRemoved: JobProducer["enqueueMemberRemoved"] = (input) => jobs().enqueueMemberRemoved(input);
export const requestRediscovery: JobProducer["requestRediscovery"] = (input) => jobs().requestRediscovery(input);
export const requestCatalogueRefresh: JobProducer["requestCatalogueRefresh"] = (input) =>
  jobs().requestCatalogueRefresh(input);
export const reportCallFailed: JobProducer["reportCallFailed"] = (input) => jobs().reportCallFailed(input);
export const enqueueOAuth: JobProducer["enqueueOAuth"] = (input) => jobs().enqueueOAuth(input);
