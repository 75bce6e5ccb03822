export type { HttpLaunch, ResolvedLaunch } from "./launch";
export { createUpstreamTransport, type HeaderSource, type UpstreamTransportOptions } from "./transport";
export {
  ConnectionClosedError,
  DEFAULT_CLIENT_INFO,
  DEFAULT_REQUEST_TIMEOUT_MS,
  UpstreamConnection,
  type CallOptions,
  type Connector,
  type InputRetry,
  type ListChangedListener,
  type ListKind,
  type LoggingListener,
  type Negotiated,
  type ResourceUpdatedListener,
  type ServerRequestHandler,
  type ServerToClientRequest,
  type UpstreamConnectionOptions,
} from "./connection";
export { ConnectionPool, type ConnectionPoolOptions, type UpstreamTarget } from "./pool";
export { isConnectionFailure } from "./failure";
export { LazyJsonSchemaValidator } from "./json-schema-validator";
export { TASKS_EXTENSION, type TaskMethod } from "./modern-tasks";
export { nodeFetch } from "./node-fetch";
export { bridgeFetch } from "./bridge-fetch";
export { egressFetch } from "./egress-fetch";
export {
  DEFAULT_RESPONSE_LIMITS,
  ResponseLimitError,
  type ResponseLimitKind,
  type ResponseLimits,
} from "./response-limits";
