export type { OAuthClientStore, OAuthTokenSet } from "./store";
export {
  AuthorizationFlowError,
  OAuthNotOfferedError,
  OAuthStartTimeoutError,
  ReauthorizationRequiredError,
} from "./errors";
export { classifyRefreshFailure, needsRefresh, OAUTH_POLICY, refreshAt, type RefreshFailure } from "./policy";
export { clientMetadataDocument, FlowOAuthProvider, type FlowProviderOptions } from "./provider";
export {
  CLIENT_METADATA_PATH,
  clientMetadataUrlFor,
  finishAuthorization,
  startAuthorization,
  stepUpScope,
  tokenSetFrom,
  type AuthorizationTarget,
  type StartedAuthorization,
} from "./flow";
export { refreshAccessToken, type RefreshInput, type RefreshResult } from "./refresh";
export { oauthFetch, type OAuthFetchOptions } from "./fetch";
