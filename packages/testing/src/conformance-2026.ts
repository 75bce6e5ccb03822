import {
  fromJsonSchema,
  inputRequired,
  McpServer,
  ResourceTemplate,
  type CallToolResult,
  type ElicitResult,
  type CreateMessageResult,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import {
  CONTENT_TOOLS,
  ELICITATION_TOOLS,
  elicited,
  JSON_SCHEMA_2020_12,
  INVALID_MIRRORED_TOOL,
  LOG_LINES,
  MIRRORED_PARAM_TOOL,
  PROMPTS,
  reportProgress,
  SERVER_INFO,
  STATELESS_LOG_LINES,
  STATIC_RESOURCES,
  TEMPLATE,
  TEST_ELICITATION_SCHEMA,
  text,
} from "./conformance-data";
import { answered, codec, none, registerInputRequiredTools } from "./conformance-2026-input";
import { registerTaskTools, TASKS_EXTENSION } from "./tasks-2026";

/**
 * The conformance suite's server specification (the same tools, resources and prompts as the SDK 1.x fixture,
 * conformance-server.ts, from conformance-data.ts) on the official SDK v2 server, which speaks 2026-07-28:
 * what the 1.x fixture asks its client in the middle of a call (sampling, elicitation) is an `input_required`
 * result here, answered by the client's retry. Served with `Upstream2026.start({ server })`.
 */

function elicitTool(message: string, requestedSchema: Record<string, unknown>, prefix: string) {
  return async (ctx: { mcpReq: { inputResponses?: Record<string, unknown> } }) => {
    const result = answered<ElicitResult>(ctx.mcpReq.inputResponses, "elicit");
    if (!result)
      return inputRequired({
        inputRequests: { elicit: inputRequired.elicit({ message, requestedSchema: requestedSchema as never }) },
      });
    return elicited(prefix, result);
  };
}

export function conformanceServer2026(): McpServer {
  const mcp = new McpServer(SERVER_INFO, {
    capabilities: {
      tools: { listChanged: true },
      resources: { listChanged: true },
      prompts: { listChanged: true },
      logging: {},
      completions: {},
      extensions: { [TASKS_EXTENSION]: {} },
    },
    // A requestState we minted comes back verified; anything else is refused with -32602 before a handler runs.
    requestState: { verify: (state, ctx) => codec.verify(state, ctx) },
  });
  registerInputRequiredTools(mcp);
  registerTaskTools(mcp);

  for (const tool of CONTENT_TOOLS)
    mcp.registerTool(tool.name, { description: tool.description }, async (): Promise<CallToolResult> => ({
      content: tool.content,
    }));
  const logged = async (ctx: { mcpReq: { log(level: "info", data: unknown): Promise<void> } }, lines: string[]) => {
    for (const data of lines) {
      await ctx.mcpReq.log("info", data);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  mcp.registerTool(
    "test_tool_with_logging",
    { description: "Tests tool that emits log messages during execution", inputSchema: none },
    async (_args, ctx) => {
      await logged(ctx, LOG_LINES);
      return text("Tool with logging executed successfully");
    },
  );
  mcp.registerTool(
    "test_logging_tool",
    { description: "Emits log messages (sent only to requests that ask for a log level)", inputSchema: none },
    async (_args, ctx) => {
      await logged(ctx, STATELESS_LOG_LINES);
      return text("Tool with logging executed successfully");
    },
  );
  mcp.registerTool(
    "test_tool_with_progress",
    { description: "Tests tool that reports progress notifications", inputSchema: none },
    async (_args, ctx) => reportProgress(ctx.mcpReq._meta?.progressToken ?? 0, (notice) => ctx.mcpReq.notify(notice)),
  );
  mcp.registerTool("test_error_handling", { description: "Tests error response handling" }, async () => {
    throw new Error("This tool intentionally returns an error for testing");
  });
  mcp.registerTool(
    "test_sampling",
    {
      description: "Tests server-initiated sampling (LLM completion request)",
      inputSchema: z.object({ prompt: z.string().describe("The prompt to send to the LLM") }),
    },
    async ({ prompt }, ctx) => {
      const result = answered<CreateMessageResult>(ctx.mcpReq.inputResponses, "sample");
      if (!result)
        return inputRequired({
          inputRequests: {
            sample: inputRequired.createMessage({
              messages: [{ role: "user", content: { type: "text", text: prompt } }],
              maxTokens: 100,
            }),
          },
        });
      const content = result.content as { type: string; text?: string };
      return text(`LLM response: ${content.type === "text" ? content.text : "No response"}`);
    },
  );
  mcp.registerTool(
    "test_missing_capability",
    { description: "Needs sampling: refused with -32021 when the client did not declare it", inputSchema: none },
    async (_args, ctx) => {
      const result = answered<CreateMessageResult>(ctx.mcpReq.inputResponses, "sample");
      if (!result)
        return inputRequired({
          inputRequests: { sample: inputRequired.createMessage({ messages: [], maxTokens: 1 }) },
        });
      return text(`sampled with ${result.model}`);
    },
  );
  mcp.registerTool(
    "test_elicitation",
    {
      description: "Tests server-initiated elicitation (user input request)",
      inputSchema: z.object({ message: z.string().describe("The message to show the user") }),
    },
    async ({ message }, ctx) => elicitTool(message, TEST_ELICITATION_SCHEMA, "User response")(ctx),
  );
  for (const tool of ELICITATION_TOOLS)
    mcp.registerTool(tool.name, { description: tool.description, inputSchema: none }, async (_args, ctx) =>
      elicitTool(tool.message, tool.requestedSchema, tool.prefix)(ctx),
    );
  mcp.registerTool(
    "json_schema_2020_12_tool",
    {
      description: "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
      inputSchema: fromJsonSchema(JSON_SCHEMA_2020_12),
    },
    async (args) => text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`),
  );

  mcp.registerTool(
    MIRRORED_PARAM_TOOL.name,
    { description: MIRRORED_PARAM_TOOL.description, inputSchema: fromJsonSchema(MIRRORED_PARAM_TOOL.inputSchema) },
    async (args) => text(`region: ${String((args as { region?: unknown }).region)}`),
  );

  for (const resource of STATIC_RESOURCES)
    mcp.registerResource(resource.name, resource.uri, resource.metadata, async () => ({ contents: resource.contents }));
  mcp.registerResource(
    TEMPLATE.name,
    new ResourceTemplate(TEMPLATE.uriTemplate, { list: undefined }),
    TEMPLATE.metadata,
    async (uri, { id }) => TEMPLATE.read(uri, id),
  );

  mcp.registerPrompt(PROMPTS.simple.name, PROMPTS.simple.config, async () => PROMPTS.simple.get());
  mcp.registerPrompt(
    PROMPTS.withArguments.name,
    {
      ...PROMPTS.withArguments.config,
      argsSchema: z.object({
        arg1: z.string().describe("First test argument"),
        arg2: z.string().describe("Second test argument"),
      }),
    },
    async (args) => PROMPTS.withArguments.get(args),
  );
  mcp.registerPrompt(
    PROMPTS.embeddedResource.name,
    {
      ...PROMPTS.embeddedResource.config,
      argsSchema: z.object({ resourceUri: z.string().describe("URI of the resource to embed") }),
    },
    async (args) => PROMPTS.embeddedResource.get(args),
  );
  mcp.registerPrompt(PROMPTS.image.name, PROMPTS.image.config, async () => PROMPTS.image.get());
  mcp.server.setRequestHandler("completion/complete", async () => ({
    completion: { values: [], total: 0, hasMore: false },
  }));
  return mcp;
}

/** The 2026 fixture with one more tool, whose `x-mcp-header` annotation is invalid (see INVALID_MIRRORED_TOOL). */
export function invalidHeaderServer2026(): McpServer {
  const mcp = conformanceServer2026();
  mcp.registerTool(
    INVALID_MIRRORED_TOOL.name,
    { description: INVALID_MIRRORED_TOOL.description, inputSchema: fromJsonSchema(INVALID_MIRRORED_TOOL.inputSchema) },
    async () => text("never listed"),
  );
  return mcp;
}
