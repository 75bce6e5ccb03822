import { randomBytes } from "node:crypto";
import {
  createRequestStateCodec,
  inputRequired,
  type McpServer,
  type CreateMessageResult,
  type ElicitResult,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { text } from "./conformance-data";

/** A tool without arguments. */
export const none = z.object({});

/** One key per process: every round of a flow reaches this process (the fixture is one process). */
export const codec = createRequestStateCodec<{ step: number }>({ key: randomBytes(32) });

/** The answer to the input request `key` of an earlier round, if the retry carries it. */
export const answered = <T>(responses: Record<string, unknown> | undefined, key: string) =>
  responses?.[key] as T | undefined;

const NAME_SCHEMA = { type: "object", properties: { name: { type: "string" } }, required: ["name"] };
const askName = (message = "What is your name?") =>
  inputRequired.elicit({ message, requestedSchema: NAME_SCHEMA as never });
const accepted = (responses: Record<string, unknown> | undefined, key: string) => {
  const answer = answered<ElicitResult>(responses, key);
  return answer && typeof answer === "object" && typeof answer.action === "string" ? answer : undefined;
};

/** The tools and prompt of the suite's `input-required-result-*` scenarios (SEP-2322, 2026-07-28 only). */
export function registerInputRequiredTools(mcp: McpServer): void {
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
