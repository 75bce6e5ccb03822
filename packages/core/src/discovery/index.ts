export { discover, type DiscoverOptions } from "./discover";
export { markClientCapabilityTools } from "./client-capability-tools";
export { collectPages, MAX_PAGES } from "./paginate";
export type { DiscoveryClient, DiscoveryResult, LongToolName, ToolTokens } from "./types";
