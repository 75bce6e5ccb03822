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
export { writeJsonRpcError, writeJsonRpcErrors } from "./http-answers";
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
  checkModernPost,
  checkParamHeaders,
  decodeMcpHeaderValue,
  isModernPost,
  legacyRequest,
  logAllowed,
  META,
  MODERN_METHODS,
  MODERN_PROTOCOL_VERSION,
  ModernErrorCode,
  modernResult,
  SERVED_PROTOCOL_VERSIONS,
  type ModernCheck,
  type ModernRequest,
} from "./modern";
export { StatelessExchange, type InputRequests, type StatelessExchangeOptions } from "./stateless-transport";
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
