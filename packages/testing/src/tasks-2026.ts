import { randomUUID } from "node:crypto";
import { ProtocolError, ProtocolErrorCode, type McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { inputRequired, type ElicitResult } from "@modelcontextprotocol/server";
import { answered, none } from "./conformance-2026-input";
import { text } from "./conformance-data";

/** The 2026-07-28 tasks extension's identifier, as client and server declare it. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
/** The revision's -32021: the request needs a capability the client did not declare. */
const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;

type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** One input request of a task (`elicitation/create`, ...), as an `input_required` result carries it. */
type InputRequest = Record<string, unknown>;
/** What a task's run may do besides finishing: ask the client for input and wait for every answer. */
type Ask = (requests: Record<string, InputRequest>) => Promise<Record<string, unknown>>;

interface StoredTask {
  taskId: string;
  status: TaskStatus;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
  inputRequests?: Record<string, InputRequest>;
  controller: AbortController;
  /** Takes the answers `tasks/update` delivers for the pending input requests. */
  answer?: (responses: Record<string, unknown>) => void;
}

/**
 * The tasks extension (`io.modelcontextprotocol/tasks`) for a fixture on SDK v2 2.4.0, which has none: tasks kept
 * here (the fixture's one process; a server instance lives for one request), `tasks/get|update|cancel` served
 * on each request's server, gated on the client declaring the extension. A task may ask for input: it is then
 * `input_required` with its pending `inputRequests` until `tasks/update` has answered every one of them.
 */
export class FixtureTasks {
  private readonly tasks = new Map<string, StoredTask>();

  /** Whether the client of `mcp`'s request declared the extension (its `_meta` capabilities). */
  declared(mcp: McpServer): boolean {
    return mcp.server.getClientCapabilities()?.extensions?.[TASKS_EXTENSION] !== undefined;
  }

  /**
   * Starts `run` as a task and answers what the call returns (a flat `CreateTaskResult`). A result settles it
   * `completed`; a ProtocolError `failed`; `tasks/cancel` aborts the signal and settles it `cancelled`.
   */
  start(run: (signal: AbortSignal, ask: Ask) => Promise<Record<string, unknown>>): Record<string, unknown> {
    const now = new Date().toISOString();
    const task: StoredTask = {
      taskId: randomUUID(),
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: 60_000,
      pollIntervalMs: 50,
      controller: new AbortController(),
    };
    this.tasks.set(task.taskId, task);
    const settle = (status: TaskStatus, outcome: Pick<StoredTask, "result" | "error">) => {
      if (task.status !== "working") return;
      Object.assign(task, { status, lastUpdatedAt: new Date().toISOString(), ...outcome });
    };
    run(task.controller.signal, (requests) => this.ask(task, requests)).then(
      (result) => settle("completed", { result }),
      (error: unknown) => {
        if (task.controller.signal.aborted) return;
        const code = error instanceof ProtocolError ? error.code : ProtocolErrorCode.InternalError;
        settle("failed", { error: { code, message: error instanceof Error ? error.message : String(error) } });
      },
    );
    return { resultType: "task", ...this.shown(task, false) };
  }

  /** Parks `task` as `input_required` until `tasks/update` has answered each of `requests`, in any rounds. */
  private ask(task: StoredTask, requests: Record<string, InputRequest>): Promise<Record<string, unknown>> {
    const answers: Record<string, unknown> = {};
    return new Promise((resolve, reject) => {
      task.controller.signal.addEventListener("abort", () => reject(new Error("cancelled")), { once: true });
      Object.assign(task, { status: "input_required", inputRequests: { ...requests } });
      task.lastUpdatedAt = new Date().toISOString();
      task.answer = (responses) => {
        const pending = task.inputRequests ?? {};
        for (const [key, response] of Object.entries(responses)) {
          if (!(key in pending)) continue;
          answers[key] = response;
          delete pending[key];
        }
        if (Object.keys(pending).length > 0) return;
        Object.assign(task, { status: "working", inputRequests: undefined, answer: undefined });
        task.lastUpdatedAt = new Date().toISOString();
        resolve(answers);
      };
    });
  }

  /** The -32021 a tool whose task support is required answers a client that did not declare the extension. */
  required(): ProtocolError {
    return new ProtocolError(
      MISSING_REQUIRED_CLIENT_CAPABILITY,
      `Missing required client capability: ${TASKS_EXTENSION}`,
      { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    );
  }

  /** Registers `tasks/get`, `tasks/update` and `tasks/cancel` on a request's server. */
  serve(mcp: McpServer): void {
    const params = z.object({ taskId: z.string() }).passthrough();
    const find = (taskId: string) => {
      if (!this.declared(mcp)) throw this.required();
      const task = this.tasks.get(taskId);
      if (!task) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown task: ${taskId}`);
      return task;
    };
    mcp.server.setRequestHandler("tasks/get", { params }, ({ taskId }) => this.shown(find(taskId), true));
    // The SDK lifts `inputResponses` out of the params into the request's context, as on a retried request.
    mcp.server.setRequestHandler("tasks/update", { params }, ({ taskId }, ctx) => {
      const task = find(taskId);
      if (task.status === "input_required") task.answer?.(ctx.mcpReq.inputResponses ?? {});
      return {};
    });
    mcp.server.setRequestHandler("tasks/cancel", { params }, ({ taskId }) => {
      const task = find(taskId);
      if (task.status === "working" || task.status === "input_required") {
        Object.assign(task, { status: "cancelled", inputRequests: undefined, answer: undefined });
        task.lastUpdatedAt = new Date().toISOString();
        task.controller.abort();
      }
      return {};
    });
  }

  stop(): void {
    for (const task of this.tasks.values()) task.controller.abort();
  }

  private shown(task: StoredTask, detailed: boolean): Record<string, unknown> {
    const { controller: _controller, answer: _answer, result, error, inputRequests, ...shown } = task;
    if (!detailed) return shown;
    return {
      ...shown,
      ...(result ? { result } : {}),
      ...(error ? { error } : {}),
      ...(inputRequests ? { inputRequests } : {}),
    };
  }
}

/** Resolves after `ms`, or rejects when `signal` aborts first. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), reject(new Error("cancelled"))), { once: true });
  });
}

/** The fixture's tasks, kept for the process (one server instance per request). */
const tasks = new FixtureTasks();

const confirmation = (message: string) =>
  inputRequired.elicit({
    message,
    requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } } } as never,
  }) as unknown as InputRequest;
const nameOf = (answer: unknown) => String((answer as ElicitResult | undefined)?.content?.name ?? "stranger");

/**
 * The tools the suite's tasks-* scenarios (the tasks extension, unscored) call: `greet` answers at once; the
 * others answer a client that declares the extension with a task, some of which ask for input on the way
 * (`confirm_delete` once, `multi_input` twice at once). `test_tool_with_task` asks through an `input_required`
 * result first and becomes a task on the round that carries the answer. Not served: task status notifications.
 */
export function registerTaskTools(mcp: McpServer): void {
  tasks.serve(mcp);
  // Without the extension a task that asks for input cannot: it goes on with no answers.
  const asTask = (run: (signal: AbortSignal, ask: Ask) => Promise<Record<string, unknown>>) =>
    (tasks.declared(mcp) ? tasks.start(run) : run(new AbortController().signal, async () => ({}))) as never;
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
    async () =>
      tasks.start(
        async (signal) => (
          await sleep(1000, signal),
          { isError: true, content: [{ type: "text", text: "job failed" }] }
        ),
      ) as never,
  );
  mcp.registerTool(
    "confirm_delete",
    {
      description: "Asks to confirm, then deletes (nothing); a task for a client that declares tasks",
      inputSchema: z.object({ filename: z.string() }),
    },
    async ({ filename }) =>
      asTask(async (_signal, ask) => {
        const answers = await ask({ confirm: confirmation(`Delete ${filename}?`) });
        const confirmed = (answers.confirm as ElicitResult | undefined)?.action === "accept";
        return text(confirmed ? `deleted ${filename}` : `kept ${filename}`);
      }),
  );
  mcp.registerTool(
    "multi_input",
    { description: "Asks two questions at once, as a task", inputSchema: none },
    async () =>
      asTask(async (_signal, ask) => {
        const answers = await ask({ first: confirmation("First?"), second: confirmation("Second?") });
        return text(`got ${nameOf(answers.first)} and ${nameOf(answers.second)}`);
      }),
  );
  // Task support required; asks the user's name through an input_required result, then answers with a task.
  mcp.registerTool(
    "test_tool_with_task",
    { description: "Asks the user's name, then greets them from a task", inputSchema: none },
    async (_args, ctx) => {
      const answer = answered<ElicitResult>(ctx.mcpReq.inputResponses, "user_name");
      if (!answer)
        return inputRequired({
          inputRequests: {
            user_name: inputRequired.elicit({
              message: "What is your name?",
              requestedSchema: { type: "object", properties: { name: { type: "string" } } } as never,
            }),
          },
        });
      return tasks.start(async () => text(`Hello, ${nameOf(answer)}!`)) as never;
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
  requireTasks(mcp, ["failing_job", "test_tool_with_task"]);
}

/**
 * Refuses calls of `names` (task support required) from a client that did not declare the extension with the
 * -32021 error, before the SDK's `tools/call` handler, which turns whatever a tool throws into an isError result.
 */
function requireTasks(mcp: McpServer, names: string[]): void {
  // Replaced in the server's table rather than set again: a second registration would wrap the SDK's handler
  // twice (its tools/call result handling, requestState included, would run twice).
  type Handler = (request: { params: { name: string } }, ctx: unknown) => Promise<unknown>;
  const handlers = (mcp.server as unknown as { _requestHandlers: Map<string, Handler> })._requestHandlers;
  const call = handlers.get("tools/call")!;
  handlers.set("tools/call", async (request, ctx) => {
    if (names.includes(request.params.name) && !tasks.declared(mcp)) throw tasks.required();
    return call(request, ctx);
  });
}
