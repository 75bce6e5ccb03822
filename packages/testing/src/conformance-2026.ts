import { randomBytes } from "node:crypto";
import {
  createRequestStateCodec,
  fromJsonSchema,
  inputRequired,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
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
import { FixtureTasks, sleep, TASKS_EXTENSION } from "./tasks-2026";

/**
 * The conformance suite's server specification (the same tools, resources and prompts as the SDK 1.x fixture,
 * conformance-server.ts, from conformance-data.ts) on the official SDK v2 server, which speaks 2026-07-28:
 * what the 1.x fixture asks its client in the middle of a call (sampling, elicitation) is an `input_required`
 * result here, answered by the client's retry. Served with `ModernUpstream.start({ server })`.
 */
const none = z.object({});

/** The answer to the input request `key` of an earlier round, if the retry carries it. */
const answered = <T>(responses: Record<string, unknown> | undefined, key: string) => responses?.[key] as T | undefined;

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

/** One key per process: every round of a flow reaches this process (the fixture is one process). */
const codec = createRequestStateCodec<{ step: number }>({ key: randomBytes(32) });

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

const NAME_SCHEMA = { type: "object", properties: { name: { type: "string" } }, required: ["name"] };
const askName = (message = "What is your name?") =>
  inputRequired.elicit({ message, requestedSchema: NAME_SCHEMA as never });
const accepted = (responses: Record<string, unknown> | undefined, key: string) => {
  const answer = answered<ElicitResult>(responses, key);
  return answer && typeof answer === "object" && typeof answer.action === "string" ? answer : undefined;
};

/** The tools and prompt of the suite's `input-required-result-*` scenarios (SEP-2322, 2026-07-28 only). */
/** The fixture's tasks, kept for the process (one server instance per request). */
const tasks = new FixtureTasks();

/**
 * The tools the suite's tasks-* scenarios (the tasks extension, unscored) call: `greet` answers at once; the
 * others answer a client that declares the extension with a task. Not served: the tasks that ask for input
 * (`confirm_delete`, `multi_input`, `test_tool_with_task`), task status notifications, required task support.
 */
function registerTaskTools(mcp: McpServer): void {
  tasks.serve(mcp);
  const asTask = (run: (signal: AbortSignal) => Promise<Record<string, unknown>>) =>
    (tasks.declared(mcp) ? tasks.start(run) : run(new AbortController().signal)) as never;
  mcp.registerTool(
    "greet",
    { description: "Greets by name, at once", inputSchema: z.object({ name: z.string() }) },
    async ({ name }) => text(`Hello, ${name}!`),
  );
  mcp.registerTool(
    "slow_compute",
    {
      description: "Answers after `seconds`; a task for a client that declares tasks",
      inputSchema: z.object({ seconds: z.number(), label: z.string().optional() }),
    },
    async ({ seconds, label }) =>
      asTask(async (signal) => (await sleep(seconds * 1000, signal), text(`computed ${label ?? ""}`.trim()))),
  );
  // Task support required: a client that did not declare the extension is refused (-32021).
  mcp.registerTool(
    "failing_job",
    { description: "A task whose tool fails after a second", inputSchema: none },
    async () => {
      if (!tasks.declared(mcp)) throw tasks.required();
      return tasks.start(
        async (signal) => (
          await sleep(1000, signal),
          { isError: true, content: [{ type: "text", text: "job failed" }] }
        ),
      ) as never;
    },
  );
  mcp.registerTool(
    "protocol_error_job",
    { description: "A task that ends in a protocol error", inputSchema: none },
    async () =>
      asTask(async () => {
        throw new ProtocolError(ProtocolErrorCode.InternalError, "the job crashed");
      }),
  );
}

function registerInputRequiredTools(mcp: McpServer): void {
  mcp.registerTool(
    "test_input_required_result_elicitation",
    { description: "Asks the user's name through an input_required result", inputSchema: none },
    async (_args, ctx) => {
      const answer = accepted(ctx.mcpReq.inputResponses, "user_name");
      if (!answer) return inputRequired({ inputRequests: { user_name: askName() } });
      return text(`Hello, ${String(answer.content?.name ?? "stranger")}!`);
    },
  );
  mcp.registerTool(
    "test_input_required_result_sampling",
    { description: "Asks the client's model a question through an input_required result", inputSchema: none },
    async (_args, ctx) => {
      const answer = answered<CreateMessageResult>(ctx.mcpReq.inputResponses, "capital_question");
      if (!answer)
        return inputRequired({
          inputRequests: {
            capital_question: inputRequired.createMessage({
              messages: [{ role: "user", content: { type: "text", text: "What is the capital of France?" } }],
              maxTokens: 100,
            }),
          },
        });
      const content = answer.content as { type?: string; text?: string };
      return text(`Model said: ${content?.type === "text" ? content.text : "?"}`);
    },
  );
  mcp.registerTool(
    "test_input_required_result_list_roots",
    { description: "Asks the client's roots through an input_required result", inputSchema: none },
    async (_args, ctx) => {
      const answer = answered<{ roots?: Array<{ uri: string }> }>(ctx.mcpReq.inputResponses, "client_roots");
      if (!answer) return inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } });
      return text(`Roots: ${(answer.roots ?? []).map((r) => r.uri).join(", ")}`);
    },
  );
  mcp.registerTool(
    "test_input_required_result_request_state",
    { description: "Round-trips a signed requestState", inputSchema: none },
    async (_args, ctx) => {
      const state = ctx.mcpReq.requestState<{ step: number }>();
      if (!ctx.mcpReq.inputResponses || state?.step !== 1)
        return inputRequired({
          inputRequests: { confirm: askName("Confirm to continue") },
          requestState: await codec.mint({ step: 1 }),
        });
      return text("state-ok");
    },
  );
  mcp.registerTool(
    "test_input_required_result_tampered_state",
    { description: "Issues an HMAC-signed requestState; a tampered one is refused", inputSchema: none },
    async (_args, ctx) => {
      if (!ctx.mcpReq.inputResponses || ctx.mcpReq.requestState<{ step: number }>()?.step !== 1)
        return inputRequired({
          inputRequests: { confirm: askName("Confirm to continue") },
          requestState: await codec.mint({ step: 1 }),
        });
      return text("state-ok");
    },
  );
  mcp.registerTool(
    "test_input_required_result_multiple_inputs",
    { description: "Asks for an elicitation, a sample and the roots at once", inputSchema: none },
    async (_args, ctx) => {
      const responses = ctx.mcpReq.inputResponses;
      const keys = ["user_name", "greeting", "client_roots"];
      if (!responses || keys.some((key) => answered(responses, key) === undefined))
        return inputRequired({
          inputRequests: {
            user_name: askName(),
            greeting: inputRequired.createMessage({
              messages: [{ role: "user", content: { type: "text", text: "Say hello" } }],
              maxTokens: 20,
            }),
            client_roots: inputRequired.listRoots(),
          },
          requestState: await codec.mint({ step: 1 }),
        });
      return text("All inputs received");
    },
  );
  mcp.registerTool(
    "test_input_required_result_multi_round",
    { description: "Asks twice, one question per round, with evolving requestState", inputSchema: none },
    async (_args, ctx) => {
      const step = ctx.mcpReq.requestState<{ step: number }>()?.step ?? 0;
      const responses = ctx.mcpReq.inputResponses;
      if (step === 1 && accepted(responses, "step1"))
        return inputRequired({
          inputRequests: { step2: askName("What is your favourite colour?") },
          requestState: await codec.mint({ step: 2 }),
        });
      if (step === 2 && accepted(responses, "step2")) return text("Both rounds answered");
      return inputRequired({ inputRequests: { step1: askName() }, requestState: await codec.mint({ step: 1 }) });
    },
  );
  mcp.registerTool(
    "test_input_required_result_capabilities",
    { description: "Asks only for what the client declared it can answer", inputSchema: none },
    async (_args, ctx) => {
      // One server per request: what it knows of its client is this request's envelope.
      const declared = mcp.server.getClientCapabilities() ?? {};
      if (ctx.mcpReq.inputResponses) return text("Capabilities respected");
      const inputRequests: Record<string, ReturnType<typeof askName>> = {};
      if (declared.elicitation) inputRequests.user_name = askName();
      if (declared.sampling)
        inputRequests.greeting = inputRequired.createMessage({
          messages: [{ role: "user", content: { type: "text", text: "Say hello" } }],
          maxTokens: 20,
        });
      if (declared.roots) inputRequests.client_roots = inputRequired.listRoots();
      if (Object.keys(inputRequests).length === 0) return text("Nothing to ask this client");
      return inputRequired({ inputRequests });
    },
  );
  mcp.registerPrompt(
    "test_input_required_result_prompt",
    { title: "Prompt needing input", description: "Asks the user's name before it is rendered" },
    async (ctx) => {
      const answer = accepted(ctx.mcpReq.inputResponses, "user_name");
      if (!answer) return inputRequired({ inputRequests: { user_name: askName() } }) as never;
      return {
        messages: [
          { role: "user", content: { type: "text", text: `Greet ${String(answer.content?.name ?? "them")}` } },
        ],
      };
    },
  );
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
