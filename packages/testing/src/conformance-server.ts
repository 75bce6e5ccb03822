import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  CompleteRequestSchema,
  ElicitResultSchema,
  CreateMessageResultSchema,
  McpError,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import {
  CONTENT_TOOLS,
  ELICITATION_TOOLS,
  elicited,
  JSON_SCHEMA_2020_12,
  LOG_LINES,
  PROMPTS,
  reportProgress,
  SERVER_INFO,
  STATELESS_LOG_LINES,
  STATIC_RESOURCES,
  TEMPLATE,
  TEST_ELICITATION_SCHEMA,
  text,
} from "./conformance-data";

/**
 * The server of the MCP conformance suite's server specification (`@modelcontextprotocol/conformance` 0.1.16,
 * protocol 2025-11-25): the tools, resources and prompts its server scenarios call, with the answers they expect.
 * Written from the suite's scenario descriptions and its example server; one McpServer per session. The answers
 * are in conformance-data.ts, shared with the SDK v2 fixture of 2026-07-28 (conformance-2026.ts).
 */
export function conformanceServer(): McpServer {
  const mcp = new McpServer(SERVER_INFO, {
    capabilities: {
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      logging: {},
      completions: {},
    },
  });
  const server = mcp.server;

  for (const tool of CONTENT_TOOLS)
    mcp.registerTool(tool.name, { description: tool.description }, async () => ({ content: tool.content }));
  mcp.registerTool(
    "test_tool_with_logging",
    { description: "Tests tool that emits log messages during execution", inputSchema: {} },
    async (_args, extra) => {
      for (const data of LOG_LINES) {
        await extra.sendNotification({ method: "notifications/message", params: { level: "info", data } });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return text("Tool with logging executed successfully");
    },
  );
  mcp.registerTool(
    "test_tool_with_progress",
    { description: "Tests tool that reports progress notifications", inputSchema: {} },
    async (_args, extra) => reportProgress(extra._meta?.progressToken ?? 0, (notice) => extra.sendNotification(notice)),
  );
  mcp.registerTool("test_error_handling", { description: "Tests error response handling" }, async () => {
    throw new Error("This tool intentionally returns an error for testing");
  });
  mcp.registerTool(
    "test_sampling",
    {
      description: "Tests server-initiated sampling (LLM completion request)",
      inputSchema: { prompt: z.string().describe("The prompt to send to the LLM") },
    },
    async ({ prompt }, extra) => {
      const result = await extra.sendRequest(
        {
          method: "sampling/createMessage",
          params: { messages: [{ role: "user", content: { type: "text", text: prompt } }], maxTokens: 100 },
        },
        CreateMessageResultSchema,
      );
      const content = result.content as { type: string; text?: string };
      return text(`LLM response: ${content.type === "text" ? content.text : "No response"}`);
    },
  );
  const elicit =
    (message: string, requestedSchema: Record<string, unknown>, prefix: string) =>
    async (extra: {
      sendRequest: (
        r: { method: "elicitation/create"; params: never },
        s: typeof ElicitResultSchema,
      ) => Promise<z.infer<typeof ElicitResultSchema>>;
    }) => {
      const result = await extra.sendRequest(
        { method: "elicitation/create", params: { message, requestedSchema } as never },
        ElicitResultSchema,
      );
      return elicited(prefix, result);
    };
  mcp.registerTool(
    "test_elicitation",
    {
      description: "Tests server-initiated elicitation (user input request)",
      inputSchema: { message: z.string().describe("The message to show the user") },
    },
    async ({ message }, extra) => elicit(message, TEST_ELICITATION_SCHEMA, "User response")(extra as never),
  );
  // The 2026-07-28 requirement set's diagnostic tools (server-stateless), in this 2025 server's own terms.
  mcp.registerTool(
    "test_logging_tool",
    { description: "Emits log messages (sent only to requests that ask for a log level)", inputSchema: {} },
    async (_args, extra) => {
      for (const data of STATELESS_LOG_LINES)
        await extra.sendNotification({ method: "notifications/message", params: { level: "info", data } });
      return text("Tool with logging executed successfully");
    },
  );
  for (const tool of ELICITATION_TOOLS)
    mcp.registerTool(tool.name, { description: tool.description, inputSchema: {} }, async (_args, extra) =>
      elicit(tool.message, tool.requestedSchema, tool.prefix)(extra as never),
    );
  mcp.registerTool(
    "test_missing_capability",
    { description: "Needs sampling: refused with -32021 when the client did not declare it", inputSchema: {} },
    async (_args, extra) => {
      const result = await extra.sendRequest(
        { method: "sampling/createMessage", params: { messages: [], maxTokens: 1 } },
        CreateMessageResultSchema,
      );
      return text(`sampled with ${result.model}`);
    },
  );
  mcp.registerTool(
    "json_schema_2020_12_tool",
    {
      description: "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
      inputSchema: {
        name: z.string().optional(),
        address: z.object({ street: z.string().optional(), city: z.string().optional() }).optional(),
      },
    },
    async (args) => text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`),
  );

  for (const resource of STATIC_RESOURCES)
    mcp.registerResource(resource.name, resource.uri, resource.metadata, async () => ({ contents: resource.contents }));
  mcp.registerResource(
    TEMPLATE.name,
    new ResourceTemplate(TEMPLATE.uriTemplate, { list: undefined }),
    TEMPLATE.metadata,
    async (uri, { id }) => TEMPLATE.read(uri, id),
  );
  const subscriptions = new Set<string>();
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    subscriptions.add(request.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    subscriptions.delete(request.params.uri);
    return {};
  });

  mcp.registerPrompt(PROMPTS.simple.name, PROMPTS.simple.config, async () => PROMPTS.simple.get());
  mcp.registerPrompt(
    PROMPTS.withArguments.name,
    {
      ...PROMPTS.withArguments.config,
      argsSchema: {
        arg1: z.string().describe("First test argument"),
        arg2: z.string().describe("Second test argument"),
      },
    },
    async (args) => PROMPTS.withArguments.get(args),
  );
  mcp.registerPrompt(
    PROMPTS.embeddedResource.name,
    {
      ...PROMPTS.embeddedResource.config,
      argsSchema: { resourceUri: z.string().describe("URI of the resource to embed") },
    },
    async (args) => PROMPTS.embeddedResource.get(args),
  );
  mcp.registerPrompt(PROMPTS.image.name, PROMPTS.image.config, async () => PROMPTS.image.get());

  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    void server
      .sendLoggingMessage({
        level: "info",
        logger: "conformance-test-server",
        data: `Log level set to: ${request.params.level}`,
      })
      .catch(() => {});
    return {};
  });
  server.setRequestHandler(CompleteRequestSchema, async () => ({
    completion: { values: [], total: 0, hasMore: false },
  }));

  // SEP-1613: the raw JSON Schema 2020-12 of one tool, with $schema, $defs and additionalProperties kept.
  const listTools = (
    server as unknown as {
      _requestHandlers: Map<string, (request: unknown, extra: unknown) => Promise<{ tools: { name: string }[] }>>;
    }
  )._requestHandlers.get("tools/list")!;
  (server as unknown as { _requestHandlers: Map<string, unknown> })._requestHandlers.set(
    "tools/list",
    async (request: unknown, extra: unknown) => {
      const listed = await listTools(request, extra);
      return {
        ...listed,
        tools: listed.tools.map((tool) =>
          tool.name === "json_schema_2020_12_tool" ? { ...tool, inputSchema: JSON_SCHEMA_2020_12 } : tool,
        ),
      };
    },
  );
  // McpServer turns whatever a tool throws into an isError result; -32021 is a JSON-RPC error, so the call is
  // refused before McpServer's own tools/call handler runs (Protocol keeps its handlers in `_requestHandlers`).
  const handlers = (server as unknown as { _requestHandlers: Map<string, (...a: unknown[]) => unknown> })
    ._requestHandlers;
  const callTool = handlers.get("tools/call")!;
  handlers.set("tools/call", (request, ...rest) => {
    const { params } = request as { params?: { name?: string } };
    if (params?.name === "test_missing_capability" && server.getClientCapabilities()?.sampling === undefined)
      throw new McpError(-32021, "Missing required client capability: sampling", {
        requiredCapabilities: { sampling: {} },
      });
    return callTool(request, ...rest);
  });
  return mcp;
}
