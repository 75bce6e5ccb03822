import { Client as SdkClientV2 } from "@modelcontextprotocol/client";
import type { DiscoverResult, SubscriptionFilter } from "@modelcontextprotocol/client";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ClientCapabilities, Implementation } from "@modelcontextprotocol/sdk/types.js";
import { backoffDelay, type BackoffOptions } from "../policies/backoff";
import { asLegacyError } from "./compat-2026";

/** How soon a dropped `subscriptions/listen` stream to an upstream is opened again. */
const RELISTEN_BACKOFF: BackoffOptions = { baseMs: 250, maxMs: 30_000, jitter: 0.2 };

/** What a 2026-07-28 client's listen streams need of its options. */
export interface ListenOptions {
  clientInfo: Implementation;
  capabilities: ClientCapabilities;
  /** A list-changed notification of the upstream's `subscriptions/listen` stream. */
  onListChanged?: (kind: "tools" | "resources" | "prompts") => void;
  /** A `notifications/resources/updated` of the upstream's `subscriptions/listen` stream. */
  onResourceUpdated?: (uri: string) => void;
  /**
   * A new transport to the same upstream. Over HTTP each listen stream gets one of its own: SDK 1.x's transport
   * cannot abort one request's stream, and a stateless server hears a `notifications/cancelled` in another
   * request, so closing the transport is the only way to end a listen stream on the server.
   */
  openTransport?: () => Promise<Transport>;
}

/** One open `subscriptions/listen` stream to the upstream. */
interface ListenStream {
  close(): Promise<void>;
}
type OpenListen = (filter: SubscriptionFilter, onDrop: () => void) => Promise<ListenStream>;

/**
 * The `subscriptions/listen` stream of a 2026-07-28 client: 2026-07-28 has no GET stream, so an upstream's
 * notifications arrive only on a listen stream held open while someone wants them. This keeps one open carrying
 * what is wanted now (list changes, resource URIs) and opens it again after a backoff when it drops.
 */
export class ListenKeeper {
  /** Resource URIs the listen stream asks updates of (the connection counts their users). */
  private readonly uris = new Set<string>();
  /** Whether the listen stream asks for list changes too. */
  private lists = false;
  private stream: ListenStream | undefined;
  /** Bumped by every change of what the stream should carry: an older (re)listen that lands late stands down. */
  private generation = 0;
  private attempt = 0;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private ended = false;

  constructor(private readonly openListen: OpenListen) {}

  /** Ask for (or stop asking for) the upstream's list changes. */
  async wantListChanges(wanted: boolean): Promise<void> {
    if (this.lists === wanted) return;
    this.lists = wanted;
    await this.relisten().catch(() => {});
  }

  /** The URI joins the stream's `resourceSubscriptions`; rejects (and forgets it) when the stream cannot open. */
  async subscribe(uri: string): Promise<void> {
    if (this.uris.has(uri)) return;
    this.uris.add(uri);
    try {
      await this.relisten();
    } catch (error) {
      this.uris.delete(uri);
      throw error;
    }
  }

  async unsubscribe(uri: string): Promise<void> {
    if (this.uris.delete(uri)) await this.relisten().catch(() => {});
  }

  /** Close the stream for good. */
  async end(): Promise<void> {
    this.ended = true;
    clearTimeout(this.retry);
    const stream = this.stream;
    this.stream = undefined;
    await stream?.close().catch(() => {});
  }

  /**
   * Open a `subscriptions/listen` stream carrying what is wanted now, then close the one it replaces (the overlap
   * may repeat a notification, never lose one); none when nothing is wanted. A stream that drops is opened again
   * after a backoff.
   */
  private async relisten(): Promise<void> {
    const generation = ++this.generation;
    clearTimeout(this.retry);
    const previous = this.stream;
    this.stream = undefined;
    try {
      if (this.ended || (!this.lists && this.uris.size === 0)) return;
      const filter = {
        ...(this.lists ? { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true } : {}),
        ...(this.uris.size > 0 ? { resourceSubscriptions: [...this.uris] } : {}),
      };
      let stream: ListenStream | undefined = undefined;
      const dropped = () => {
        if (stream && this.stream === stream) {
          this.stream = undefined;
          this.relistenLater();
        }
      };
      try {
        stream = await this.openListen(filter, dropped);
      } catch (error) {
        if (generation === this.generation) this.relistenLater();
        throw asLegacyError(error);
      }
      if (generation !== this.generation || this.ended) {
        await stream.close().catch(() => {});
        return;
      }
      this.stream = stream;
      this.attempt = 0;
    } finally {
      await previous?.close().catch(() => {});
    }
  }

  private relistenLater(): void {
    if (this.ended) return;
    clearTimeout(this.retry);
    const delay = backoffDelay(RELISTEN_BACKOFF, this.attempt++);
    this.retry = setTimeout(() => void this.relisten().catch(() => {}), delay);
    this.retry.unref?.();
  }
}

/**
 * How a client connected over `transport` opens its listen streams: over HTTP (given `openTransport`) each on a
 * client and transport of its own, else on the client's own `sdk`.
 */
export function listenOpener(
  sdk: SdkClientV2,
  transport: Transport,
  discover: DiscoverResult,
  options: ListenOptions,
): OpenListen {
  const openTransport = options.openTransport;
  return openTransport && transport instanceof StreamableHTTPClientTransport
    ? (filter, onDrop) => listenOwnTransport(openTransport, discover, options, filter, onDrop)
    : async (filter, onDrop) => {
        hearChanges(sdk, options);
        const subscription = await sdk.listen(filter);
        void subscription.closed.then((how) => how !== "local" && onDrop());
        return subscription;
      };
}

/** Route the listen stream's change notifications of `sdk` to the connection (idempotent). */
function hearChanges(sdk: SdkClientV2, options: ListenOptions): void {
  const onListChanged = options.onListChanged;
  if (onListChanged) {
    sdk.setNotificationHandler("notifications/tools/list_changed", () => onListChanged("tools"));
    sdk.setNotificationHandler("notifications/resources/list_changed", () => onListChanged("resources"));
    sdk.setNotificationHandler("notifications/prompts/list_changed", () => onListChanged("prompts"));
  }
  const onUpdated = options.onResourceUpdated;
  if (onUpdated) sdk.setNotificationHandler("notifications/resources/updated", (n) => onUpdated(n.params.uri));
}

/**
 * A listen stream on a client and transport of its own, ended by closing them. SDK 1.x's HTTP transport reports a
 * stream that broke off only through `onerror` (the request would wait forever): any error of this client, which
 * carries nothing but the listen request, counts as the stream dropping.
 */
async function listenOwnTransport(
  openTransport: () => Promise<Transport>,
  discover: DiscoverResult,
  options: ListenOptions,
  filter: SubscriptionFilter,
  onDrop: () => void,
): Promise<ListenStream> {
  const own = new SdkClientV2(options.clientInfo, { capabilities: options.capabilities as never });
  hearChanges(own, options);
  let ending = false;
  const drop = () => {
    if (ending) return;
    ending = true;
    void own.close().catch(() => {});
    onDrop();
  };
  own.onerror = drop;
  own.onclose = drop;
  const close = async () => {
    ending = true;
    await own.close().catch(() => {});
  };
  try {
    await own.connect((await openTransport()) as never, { prior: { kind: "modern", discover } });
    const subscription = await own.listen(filter);
    void subscription.closed.then((how) => how !== "local" && drop());
  } catch (error) {
    await close();
    throw error;
  }
  return { close };
}
