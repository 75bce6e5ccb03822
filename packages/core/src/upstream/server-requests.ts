import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CancelledNotificationSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  type ClientCapabilities,
  type CreateMessageRequest,
  type ElicitRequest,
  type ListRootsRequest,
  type RequestId,
  type Result,
} from "@modelcontextprotocol/sdk/types.js";

/** A request a server sends its client: answered by whoever the connection relays to (the proxy's downstream client). */
export type ServerToClientRequest = CreateMessageRequest | ElicitRequest | ListRootsRequest;
export type ServerRequestHandler = (request: ServerToClientRequest, extra: { signal: AbortSignal }) => Promise<Result>;

/**
 * Requests a 2025 upstream sends on `client` while serving a call (or on its own) go to whoever the connection
 * serves, for what the connection offered. The SDK ignores a cancellation of request id 0 (a falsy-id check),
 * which is the first request of every server session: relayed requests are cancelled through a controller of our own.
 */
export function relayServerRequests(
  client: Client,
  capabilities: ClientCapabilities,
  onServerRequest: ServerRequestHandler,
): void {
  const cancels = new Map<RequestId, AbortController>();
  const relay = async (request: ServerToClientRequest, extra: { signal: AbortSignal; requestId: RequestId }) => {
    const controller = new AbortController();
    const follow = () => controller.abort(extra.signal.reason);
    extra.signal.addEventListener("abort", follow, { once: true });
    cancels.set(extra.requestId, controller);
    try {
      return await onServerRequest(request, { signal: controller.signal });
    } finally {
      cancels.delete(extra.requestId);
      extra.signal.removeEventListener("abort", follow);
    }
  };
  const sdkCancel = (client as unknown as { _oncancel?: (n: unknown) => Promise<void> })._oncancel?.bind(client);
  client.setNotificationHandler(CancelledNotificationSchema, async (notification) => {
    const id = notification.params.requestId;
    if (id !== undefined) cancels.get(id)?.abort(notification.params.reason);
    await sdkCancel?.(notification);
  });
  if (capabilities.sampling)
    client.setRequestHandler(CreateMessageRequestSchema, (request, extra) => relay(request, extra) as never);
  if (capabilities.elicitation)
    client.setRequestHandler(ElicitRequestSchema, (request, extra) => relay(request, extra) as never);
  if (capabilities.roots)
    client.setRequestHandler(ListRootsRequestSchema, (request, extra) => relay(request, extra) as never);
}
