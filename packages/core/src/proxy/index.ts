export {
  createProxyServer,
  proxyCapabilities,
  type CatalogueKind,
  type ProxyServer,
  type ProxyServerOptions,
} from "./server";
export { offersTaskCalls } from "./handlers/tasks";
export {
  CallDeadline,
  DEFAULT_SERVER_REQUEST_TIMEOUT_MS,
  relayedCall,
  relayLogging,
  requestOptions,
  type DownstreamExtra,
} from "./relay";
export { HttpSessionTransport, SERVER_REQUEST_ID, type HttpSessionTransportOptions } from "./http-transport";
export {
  SESSION_REQUIRED_MESSAGE,
  SSE_HEADERS,
  sseEvent,
  writeJsonRpcError,
  writeJsonRpcErrors,
  writeSessionRequired,
} from "./http-answers";
export {
  jsonRpcError,
  JsonRpcPost,
  MAX_BATCH_MESSAGES,
  usableId,
  validateJsonRpcBody,
  type JsonRpcValidation,
  type MessageKind,
} from "./jsonrpc";
export {
  check2026Post,
  checkParamHeaders,
  decodeMcpHeaderValue,
  is2026Post,
  request2025,
  logAllowed,
  META,
  METHODS_2026,
  ErrorCode2026,
  result2026,
  SERVED_PROTOCOL_VERSIONS,
  type Check2026,
  type Request2026,
} from "./request-2026";
export { Exchange2026, Mux2026, type InputRequests, type Exchange2026Options } from "./transport-2026";
export { invalidParamsError, invalidParamsMessage } from "./params";
export {
  jsonTextProblem,
  jsonTextProblemMessage,
  jsonTooDeep,
  MAX_JSON_DEPTH,
  type JsonTextProblem,
} from "./json-text";
export { MAX_BODY_BYTES, readPost } from "./read-post";
export { RecoveryCoordinator } from "./recovery";
export { canAnswer, relayableCapabilities, SessionUpstreams } from "./session-upstreams";
export { buildRouter, type Route, type Router } from "./router";
export { governanceRefusal, governInstances, selectToolset } from "./governed";
export { catalogueNumbers, catalogueTotals, viewTools, type ViewTool } from "./catalogue-numbers";
export { CallRejectedError, forward, safeMeasure, type ForwardDeps, type ForwardRequest } from "./forward";
export { blockedMessage } from "./blocked";
export {
  ROUTER_TOOL_NAMES,
  ROUTER_TOOLS,
  routerModeTokenCost,
  searchTools,
  SEARCH_DEFAULT_LIMIT,
  SEARCH_MAX_LIMIT,
} from "./router-mode";
export { CALL_METHOD } from "./types";
export type {
  ApprovalAdmission,
  ApprovalGate,
  CallKind,
  CallOutcome,
  CallRecord,
  CallSink,
  CatalogueSource,
  GatedCall,
  ListedItem,
  MemberInstance,
  ProxyMember,
  ProxyMetrics,
  PolicyDecision,
  PolicyEffect,
  PolicyGate,
  ProxyMode,
  QuotaGate,
  RediscoveryTrigger,
  RefusalCause,
  RetryOverrides,
  StatusSink,
  UpstreamClient,
  UpstreamProvider,
} from "./types";
