import type { IncomingMessage, ServerResponse } from "node:http";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { META, SSE_HEADERS, sseEvent, type Request2026 } from "@switchboard/core/proxy";
import { onMemberEvent } from "@switchboard/runtime/live-events";
import { longLived } from "../lifecycle/streams";
import { changesCatalogue } from "@switchboard/core/events";
import { hasTasksExtension, type MemberContext, type MemberProxy } from "./member-proxy";
import { taskOwner, unwrapTaskId } from "./signed-state";
import { watchTask, type WatchedTask } from "./task-watch";

/**
 * `subscriptions/listen` (2026-07-28): one long-lived SSE answer carrying the change notifications the client
 * opted in to, each tagged with the subscription's id. List changes come from the member's live events, which
 * the worker publishes through Redis to every gateway process, so a stream on any process hears about every
 * instance. Resource updates come from upstream subscriptions this stream makes on its own proxy (on the member's
 * shared connections) and ends when it closes. Task statuses (`taskIds`, the tasks extension) come from the
 * owning upstreams, watched for as long as the stream is open (see `task-watch.ts`).
 */

const KEEP_ALIVE_MS = 25_000;

const LISTS = {
  toolsListChanged: "notifications/tools/list_changed",
  promptsListChanged: "notifications/prompts/list_changed",
  resourcesListChanged: "notifications/resources/list_changed",
} as const;
type ListKey = keyof typeof LISTS;

interface Filter {
  toolsListChanged?: true;
  promptsListChanged?: true;
  resourcesListChanged?: true;
  resourceSubscriptions?: string[];
  taskIds?: string[];
}

/** At most this many resources or tasks per stream. */
const MAX_NAMED = 100;

/** The opted-in filter as sent; anything malformed is simply not subscribed to. */
function filterOf(params: Record<string, unknown> | undefined): Filter {
  const wanted = params?.notifications;
  const filter: Filter = {};
  if (typeof wanted !== "object" || wanted === null) return filter;
  const w = wanted as Record<string, unknown>;
  for (const key of Object.keys(LISTS) as ListKey[]) if (w[key] === true) filter[key] = true;
  if (Array.isArray(w.resourceSubscriptions))
    filter.resourceSubscriptions = w.resourceSubscriptions
      .filter((u): u is string => typeof u === "string")
      .slice(0, MAX_NAMED);
  if (Array.isArray(w.taskIds))
    filter.taskIds = w.taskIds.filter((t): t is string => typeof t === "string").slice(0, MAX_NAMED);
  return filter;
}

/** A transport for the stream's own proxy: internal subscribe requests in, resource updates out. */
class SubscriptionTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  private readonly waiting = new Map<RequestId, (ok: boolean) => void>();
  private next = 0;
  constructor(private readonly updated: (uri: string) => void) {}
  async start(): Promise<void> {}
  async close(): Promise<void> {
    for (const resolve of this.waiting.values()) resolve(false);
    this.waiting.clear();
    this.onclose?.();
  }
  async send(message: JSONRPCMessage): Promise<void> {
    if ("method" in message) {
      if (message.method === "notifications/resources/updated") this.updated(String(message.params?.uri));
      return;
    }
    if ("id" in message) {
      const id = message.id as RequestId;
      this.waiting.get(id)?.("result" in message);
      this.waiting.delete(id);
    }
  }
  subscribe(uri: string): Promise<boolean> {
    const id = `listen-subscribe-${this.next++}`;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.onmessage?.({ jsonrpc: "2.0", id, method: "resources/subscribe", params: { uri } });
    });
  }
}

export async function serveListen(
  req: IncomingMessage,
  res: ServerResponse,
  request: Request2026,
  member: MemberContext,
  built: MemberProxy,
  closeProxy: () => Promise<void>,
): Promise<void> {
  const id = request.message.id;
  const filter = filterOf(request.message.params);
  const tag = { [META.subscriptionId]: id };
  const event = (method: string, params: Record<string, unknown> = {}) =>
    sseEvent({ jsonrpc: "2.0", method, params: { ...params, _meta: tag } });
  let closed = false;
  const cleanups: Array<() => unknown> = [];
  const end = () => {
    if (closed) return;
    closed = true;
    for (const cleanup of cleanups) void Promise.resolve(cleanup()).catch(() => undefined);
  };
  res.once("close", end);

  const agreed: Filter = {};
  for (const key of Object.keys(LISTS) as ListKey[]) if (filter[key]) agreed[key] = true;
  // The request's proxy subscribes upstream for the stream's lifetime, and shows the watched tasks' results (through
  // the guardrails); a stream with neither resources nor tasks needs none.
  if (filter.resourceSubscriptions?.length) {
    cleanups.push(closeProxy);
    const { proxy, offers } = built;
    const transport = new SubscriptionTransport((uri) => {
      if (!closed) res.write(event("notifications/resources/updated", { uri }));
    });
    await proxy.server.connect(transport);
    if (offers.resourceSubscribe) {
      const results = await Promise.all(filter.resourceSubscriptions.map((uri) => transport.subscribe(uri)));
      agreed.resourceSubscriptions = filter.resourceSubscriptions.filter((_, i) => results[i]);
    } else agreed.resourceSubscriptions = [];
  } else if (filter.taskIds?.length) cleanups.push(closeProxy);
  else await closeProxy();
  // Tasks of this member on this path, for a client that declared the extension; any other id is not agreed to.
  const tasks: WatchedTask[] = [];
  if (filter.taskIds) {
    const owner = taskOwner(member);
    const declared = hasTasksExtension(request.clientCapabilities);
    for (const wrapped of declared ? new Set(filter.taskIds) : []) {
      const owned = unwrapTaskId(wrapped, owner);
      if (owned && built.instanceIds.has(owned.instanceId)) tasks.push({ wrapped, ...owned });
    }
    agreed.taskIds = tasks.map((task) => task.wrapped);
  }
  if (closed) return end();
  res.writeHead(200, SSE_HEADERS);
  res.write(event("notifications/subscriptions/acknowledged", { notifications: agreed }));
  // Open as long as the client listens: a process shutting down ends it, and the client listens again elsewhere.
  longLived(res);
  if (closed) return;
  const lists = (Object.keys(LISTS) as ListKey[]).filter((key) => agreed[key]);
  if (lists.length > 0) {
    cleanups.push(
      onMemberEvent(member.userId, (e) => {
        if (closed || e.teamId !== member.teamId || !changesCatalogue(e)) return;
        for (const key of lists) res.write(event(LISTS[key]));
      }),
    );
  }
  for (const task of tasks)
    void watchTask(
      task,
      (params) =>
        built.proxy.shownTask(task.instanceId, params).then(
          (shown) => void (closed || res.write(event("notifications/tasks", shown))),
          () => undefined,
        ),
      () => closed,
    );
  const keepAlive = setInterval(() => res.write(":\n\n"), KEEP_ALIVE_MS).unref();
  cleanups.push(() => clearInterval(keepAlive));
}
