import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  ErrorCode,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type ReadResourceResult,
} from "@modelcontextprotocol/sdk/types.js";
import type { ProxyContext } from "../context";
import { forward } from "../forward";
import { guardCall, withheldError } from "../guarded";
import { asRelayedError, relayedCall, requestOptions, type DownstreamExtra } from "../relay";
import type { UpstreamClient } from "../types";
import type { Admission } from "./admission";
import { rejectAsMcpError } from "./forwarded";
import type { Listings } from "./lists";

export type ReadResource = (
  uri: string,
  _meta: Record<string, unknown> | undefined,
  extra: DownstreamExtra,
) => Promise<ReadResourceResult>;

/** resources/read: by the URI the member's catalogue lists, read from the upstream every time. */
export function resourceReads(ctx: ProxyContext, { admit }: Admission, { policyHiddenUi }: Listings): ReadResource {
  const { options, deps } = ctx;
  return async (uri, _meta, extra) => {
    const r = await ctx.router();
    const route = r.resolveResource(uri);
    // The UI of tools a policy hides is as missing as they are.
    if (!route || (await policyHiddenUi(r, uri)).has(uri))
      throw new McpError(ErrorCode.InvalidParams, `Unknown resource: ${uri}`);
    await admit(route, "resource", uri, undefined);
    const guard = await guardCall(options.guardrails, deps, route, "resource", uri, undefined);
    // Content is read from the upstream every time; only the listing is cached.
    const result = await rejectAsMcpError(() =>
      forward(deps, {
        route,
        kind: "resource",
        requested: uri,
        arguments: undefined,
        guardrailFindings: guard.findings,
        signal: extra.signal,
        run: (client) =>
          ctx.tracked(route.instance.instanceId, client, extra, (deadline) =>
            ctx.relayLog(client, extra, () => {
              // The request's _meta (trace context, vendor keys) goes upstream, as on a tool call.
              const relayed = ctx.passing.upstreamCall(relayedCall({ uri: route.target, _meta }, extra, deadline));
              return client.readResource(relayed.params, relayed.options).then(guard.contents);
            }),
          ),
      }),
    );
    const withheld = guard.withheld();
    if (withheld) throw withheldError(withheld);
    return ctx.passing.answerable(result);
  };
}

/** A session's resource subscriptions, made on its instances' current connections. */
export interface Subscriptions {
  /**
   * The instance's connection was replaced: subscriptions made on the old one are made again on the current one.
   * Safe to call any time; a failure is retried at the next call.
   */
  renew(instanceId: string): Promise<void>;
  /** Ends them upstream. */
  dispose(): Promise<void>;
}

/** resources/subscribe and resources/unsubscribe (when an upstream offers them); updates reach this session only. */
export function registerSubscriptions(ctx: ProxyContext): Subscriptions {
  const { options, server } = ctx;
  // The session's resource subscriptions, by instance and upstream URI, with the URI the client knows and the
  // connection they are made on (none while it could not be renewed).
  interface Subscription {
    instanceId: string;
    target: string;
    uri: string;
    on?: { client: UpstreamClient; off: () => void };
  }
  const subscriptions = new Map<string, Subscription>();
  /** Subscribes on the instance's current connection; updates come back under the client's URI, to this session only. */
  const attach = async (subscription: Subscription, client: UpstreamClient, callOptions?: RequestOptions) => {
    if (!client.subscribeResource || !client.unsubscribeResource || !client.onResourceUpdated) {
      throw new McpError(ErrorCode.MethodNotFound, "This server does not offer resource subscriptions");
    }
    await client.subscribeResource(subscription.target, callOptions);
    const off = client.onResourceUpdated((updated) => {
      if (updated === subscription.target) void server.sendResourceUpdated({ uri: subscription.uri }).catch(() => {});
    });
    subscription.on = { client, off };
  };
  const detach = async (subscription: Subscription, unsubscribe: boolean) => {
    const on = subscription.on;
    subscription.on = undefined;
    if (!on) return;
    on.off();
    if (unsubscribe) await on.client.unsubscribeResource?.(subscription.target);
  };
  if (options.offers?.resourceSubscribe) {
    server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
      const uri = request.params.uri;
      const route = (await ctx.router()).resolveResource(uri);
      if (!route) throw new McpError(ErrorCode.InvalidParams, `Unknown resource: ${uri}`);
      const key = `${route.instance.instanceId}\n${route.target}`;
      if (subscriptions.has(key)) return {};
      const subscription: Subscription = { instanceId: route.instance.instanceId, target: route.target, uri };
      try {
        await attach(subscription, await ctx.direct(route), requestOptions(options.callTimeoutMs, extra));
      } catch (error) {
        throw asRelayedError(error);
      }
      subscriptions.set(key, subscription);
      return {};
    });
    server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
      const uri = request.params.uri;
      const route = (await ctx.router()).resolveResource(uri);
      if (!route) throw new McpError(ErrorCode.InvalidParams, `Unknown resource: ${uri}`);
      const key = `${route.instance.instanceId}\n${route.target}`;
      const subscription = subscriptions.get(key);
      subscriptions.delete(key);
      try {
        if (subscription) await detach(subscription, true);
      } catch (error) {
        throw asRelayedError(error);
      }
      return {};
    });
  }
  return {
    async renew(instanceId) {
      const mine = [...subscriptions.values()].filter((s) => s.instanceId === instanceId);
      if (mine.length === 0) return;
      let client: UpstreamClient;
      try {
        client = await options.upstreams.get(instanceId);
      } catch {
        return; // Still down: the next renewal (its recovery) tries again.
      }
      for (const subscription of mine) {
        if (subscription.on?.client === client) continue;
        await detach(subscription, false);
        await attach(subscription, client).catch(() => {});
      }
    },
    async dispose() {
      const all = [...subscriptions.values()];
      subscriptions.clear();
      await Promise.all(all.map((s) => detach(s, true).catch(() => {})));
    },
  };
}

/** resources/read as a request handler. */
export function registerResourceReads(ctx: ProxyContext, readResource: ReadResource): void {
  ctx.server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) =>
    readResource(request.params.uri, request.params._meta, extra),
  );
}
