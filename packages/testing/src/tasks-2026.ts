import { randomUUID } from "node:crypto";
import { ProtocolError, ProtocolErrorCode, type McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { none } from "./conformance-2026-input";
import { text } from "./conformance-data";

/** The 2026-07-28 tasks extension's identifier, as client and server declare it. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
/** The revision's -32021: the request needs a capability the client did not declare. */
const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;

type TaskStatus = "working" | "completed" | "failed" | "cancelled";

interface StoredTask {
  taskId: string;
  status: TaskStatus;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
  controller: AbortController;
}

/**
 * The tasks extension (`io.modelcontextprotocol/tasks`) for a fixture on SDK v2 2.4.0, which has none: tasks kept
 * here (the fixture's one process; a server instance lives for one request), `tasks/get|update|cancel` served
 * on each request's server, gated on the client declaring the extension. `tasks/update` acknowledges and
 * ignores answers: no fixture task asks for input.
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
  start(run: (signal: AbortSignal) => Promise<Record<string, unknown>>): Record<string, unknown> {
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
    run(task.controller.signal).then(
      (result) => settle("completed", { result }),
      (error: unknown) => {
        if (task.controller.signal.aborted) return;
        const code = error instanceof ProtocolError ? error.code : ProtocolErrorCode.InternalError;
        settle("failed", { error: { code, message: error instanceof Error ? error.message : String(error) } });
      },
    );
    return { resultType: "task", ...this.shown(task, false) };
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
    mcp.server.setRequestHandler("tasks/update", { params }, ({ taskId }) => (find(taskId), {}));
    mcp.server.setRequestHandler("tasks/cancel", { params }, ({ taskId }) => {
      const task = find(taskId);
      if (task.status === "working") {
        task.status = "cancelled";
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
    const { controller: _controller, result, error, ...shown } = task;
    if (!detailed) return shown;
    return { ...shown, ...(result ? { result } : {}), ...(error ? { error } : {}) };
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

/**
 * The tools the suite's tasks-* scenarios (the tasks extension, unscored) call: `greet` answers at once; the
 * others answer a client that declares the extension with a task. Not served: the tasks that ask for input
 * (`confirm_delete`, `multi_input`, `test_tool_with_task`), task status notifications, required task support.
 */
export function registerTaskTools(mcp: McpServer): void {
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
