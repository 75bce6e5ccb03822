export { discover, type DiscoverOptions } from "./discover";
export { collectPages, MAX_PAGES } from "./paginate";
export type { DiscoveryClient, DiscoveryResult, LongToolName, ToolTokens } from "./types";
