import type {
  CompleteRequest,
  Implementation,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  Prompt,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  Tool,
} from "@modelcontextprotocol/sdk/types.js";

/**
 * What discovery needs from a connected client. Both `UpstreamConnection` and the SDK's `Client` fit; the
 * optional getters fill `protocolVersion` and `instructions` when available.
 */
export interface DiscoveryClient {
  listTools(params?: { cursor?: string }): Promise<ListToolsResult>;
  listResources(params?: { cursor?: string }): Promise<ListResourcesResult>;
  listResourceTemplates(params?: { cursor?: string }): Promise<ListResourceTemplatesResult>;
  listPrompts(params?: { cursor?: string }): Promise<ListPromptsResult>;
  getServerCapabilities(): ServerCapabilities | undefined;
  getServerVersion(): Implementation | undefined;
  getProtocolVersion?(): string | undefined;
  getInstructions?(): string | undefined;
  /** `completion/complete`, to find whether a server that did not declare completions serves them anyway. */
  complete?(params: CompleteRequest["params"], options?: { timeout?: number }): Promise<unknown>;
}

export interface ToolTokens {
  name: string;
  tokens: number;
}

/** A tool whose client-facing name (`{slug}-{name}`) is longer than many clients accept (64). */
export interface LongToolName {
  name: string;
  namespaced: string;
  length: number;
}

/**
 * The outcome of one discovery: plain JSON-able data the worker stores as the instance's catalogue.
 * Items keep the upstream's original names and URIs (and `_meta`); the proxy namespaces them when listing.
 */
export interface DiscoveryResult {
  slug: string;
  tools: Tool[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  prompts: Prompt[];
  tokens: { perTool: ToolTokens[]; total: number };
  longToolNames: LongToolName[];
  capabilities: ServerCapabilities;
  serverInfo: Implementation | null;
  protocolVersion: string | null;
  instructions: string | null;
  /**
   * Tools the server lists only to a client that declared sampling, elicitation or roots (discovery offers
   * them all): shown only to such clients. Absent when not determined.
   */
  clientCapabilityTools?: string[];
  /** ISO 8601 time at which discovery finished. */
  discoveredAt: string;
  durationMs: number;
}
