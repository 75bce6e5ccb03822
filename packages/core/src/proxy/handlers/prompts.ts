import { CompleteRequestSchema, ErrorCode, GetPromptRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { ProxyContext } from "../context";
import { forward } from "../forward";
import { asRelayedError, relayedCall, requestOptions } from "../relay";
import type { Admission } from "./admission";
import { rejectAsMcpError } from "./forwarded";

/** prompts/get, by the name the member's catalogue lists. */
export function registerPrompts(ctx: ProxyContext, { admit }: Admission): void {
  const { deps } = ctx;
  ctx.server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
    const { name, arguments: args, _meta } = request.params;
    const route = (await ctx.router()).resolvePrompt(name);
    if (!route) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    await admit(route, "prompt", name, args);
    return rejectAsMcpError(() =>
      forward(deps, {
        route,
        kind: "prompt",
        requested: name,
        arguments: args,
        signal: extra.signal,
        run: (client) =>
          ctx.tracked(route.instance.instanceId, client, extra, (deadline) =>
            ctx.relayLog(client, extra, () => {
              const relayed = ctx.passing.upstreamCall(
                relayedCall({ name: route.target, arguments: args, _meta }, extra, deadline),
              );
              return client.getPrompt(relayed.params, relayed.options);
            }),
          ),
      }),
    ).then(ctx.passing.answerable);
  });
}

/** completion/complete for a prompt's or a resource template's argument (when an upstream offers completions). */
export function registerCompletions(ctx: ProxyContext): void {
  const { options } = ctx;
  if (!options.offers?.completions) return;
  ctx.server.setRequestHandler(CompleteRequestSchema, async (request, extra) => {
    const { ref } = request.params;
    const r = await ctx.router();
    const route =
      ref.type === "ref/prompt"
        ? r.resolvePrompt(ref.name)
        : (r.resolveTemplate(ref.uri) ?? r.resolveResource(ref.uri));
    if (!route)
      throw new McpError(
        ErrorCode.InvalidParams,
        ref.type === "ref/prompt" ? `Unknown prompt: ${ref.name}` : `Unknown resource: ${ref.uri}`,
      );
    const client = await ctx.direct(route);
    if (!client.complete)
      throw new McpError(ErrorCode.MethodNotFound, `${route.instance.name} does not offer completions`);
    const upstreamRef = ref.type === "ref/prompt" ? { ...ref, name: route.target } : { ...ref, uri: route.target };
    try {
      return await client.complete(
        { ...request.params, ref: upstreamRef },
        requestOptions(options.callTimeoutMs, extra),
      );
    } catch (error) {
      throw asRelayedError(error);
    }
  });
}
