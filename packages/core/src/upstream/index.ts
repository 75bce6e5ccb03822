export type { HttpLaunch, ResolvedLaunch } from "./launch";
export { createUpstreamTransport, type HeaderSource, type UpstreamTransportOptions } from "./transport";
export {
  ConnectionClosedError,
  DEFAULT_CLIENT_INFO,
  DEFAULT_REQUEST_TIMEOUT_MS,
  UpstreamConnection,
  type Connector,
  type UpstreamConnectionOptions,
} from "./connection";
export type { CallOptions, InputRetry } from "./call-options";
export type {
  ListChangedListener,
  ListKind,
  LoggingListener,
  ResourceUpdatedListener,
  TaskStatusListener,
} from "./connection-listeners";
export type { Negotiated } from "./connection-session";
export type { ServerRequestHandler, ServerToClientRequest } from "./server-requests";
export { ConnectionPool, type ConnectionPoolOptions, type UpstreamTarget } from "./pool";
export { isConnectionFailure } from "./failure";
export { LazyJsonSchemaValidator } from "./json-schema-validator";
export { TASKS_EXTENSION, type TaskMethod2025, type TaskMethod } from "./tasks-2026";
export { nodeFetch } from "./node-fetch";
export { bridgeFetch } from "./bridge-fetch";
export { egressFetch } from "./egress-fetch";
export {
  DEFAULT_RESPONSE_LIMITS,
  ResponseLimitError,
  type ResponseLimitKind,
  type ResponseLimits,
} from "./response-limits";
