import {
  CancelTaskRequestSchema,
  ErrorCode,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  McpError,
  RELATED_TASK_META_KEY,
} from "@modelcontextprotocol/sdk/types.js";
import { namespaceResultResources } from "../../names";
import type { TaskMethod2025 } from "../../upstream";
import type { ProxyContext } from "../context";
import { guardCall } from "../guarded";
import { asRelayedError, type DownstreamExtra } from "../relay";
import type { Route } from "../router";
import type { MemberInstance, UpstreamClient } from "../types";

/**
 * The experimental tasks of 2025-11-25 between a 2025 session and its 2025 upstreams (`options.sessionTasks`).
 * A task-augmented `tools/call` goes up as one to an upstream that offers task calls, and the task it starts
 * comes back under an id of ours that names the owning instance; `tasks/get|result|cancel` go to that instance
 * with the upstream's id, `tasks/list` walks the session's instances that list tasks, and the upstream's
 * `notifications/tasks/status` reach the client under our id. A task's result passes the guardrails and the
 * resource-link naming a tool result passes.
 */

/** The instance's upstream offers task-augmented tool calls (2025-11-25), as its last discovery declared. */
export function offersTaskCalls(instance: Pick<MemberInstance, "capabilities">): boolean {
  return instance.capabilities?.tasks?.requests?.tools?.call !== undefined;
}

/** The instance's upstream lists its tasks (`capabilities.tasks.list`). */
const listsTasks = (instance: MemberInstance) => instance.capabilities?.tasks?.list !== undefined;

type Task = Record<string, unknown> & { taskId?: unknown };

/**
 * A request an upstream of `instanceId` sends its client about one of its tasks (an elicitation inside a task,
 * `_meta["io.modelcontextprotocol/related-task"]`) names the task by our id, as the client knows it.
 */
export function relatedTaskAsOurs<R extends { params?: Record<string, unknown> }>(
  tasks: { wrap(instanceId: string, taskId: string): string } | undefined,
  instanceId: string,
  request: R,
): R {
  const meta = request.params?._meta as Record<string, unknown> | undefined;
  const related = meta?.[RELATED_TASK_META_KEY] as { taskId?: unknown } | undefined;
  if (!tasks || typeof related?.taskId !== "string") return request;
  const taskId = tasks.wrap(instanceId, related.taskId);
  return {
    ...request,
    params: { ...request.params, _meta: { ...meta, [RELATED_TASK_META_KEY]: { ...related, taskId } } },
  };
}

/** `tasks/list` pages: which of the session's instances, and that upstream's own cursor. */
interface ListCursor {
  i: number;
  c?: string;
}
const encodeCursor = (cursor: ListCursor) => Buffer.from(JSON.stringify(cursor)).toString("base64url");
function decodeCursor(cursor: string | undefined): ListCursor | undefined {
  if (cursor === undefined) return { i: 0 };
  try {
    const parsed = JSON.parse(Buffer.from(cursor, "base64url").toString()) as ListCursor;
    if (Number.isInteger(parsed.i) && parsed.i >= 0 && (parsed.c === undefined || typeof parsed.c === "string"))
      return parsed;
  } catch {
    // Not one of ours.
  }
  return undefined;
}

/**
 * A task's result as the client may see it: what the tool call would have answered, so through the installation's
 * guardrails and with resource links named as this client reads them.
 */
export async function taskResultShown<T extends Record<string, unknown>>(
  ctx: ProxyContext,
  route: Route,
  result: T,
): Promise<T> {
  const guard = await guardCall(ctx.options.guardrails, ctx.deps, route, "tool", "tasks/result", undefined);
  const guarded = await guard.result(result);
  return ctx.mode === "namespaced" ? namespaceResultResources(route.instance.slug, guarded as never) : guarded;
}

/** A 2026-07-28 task (`tasks/get`, `notifications/tasks`) whose inline `result` is shown as `taskResultShown` says. */
export async function shownTask(
  ctx: ProxyContext,
  instanceId: string,
  task: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const result = task.result;
  if (typeof result !== "object" || result === null) return task;
  await ctx.router();
  const instance = ctx.instances()?.find((i) => i.instanceId === instanceId);
  // Not on this member's path any more: nothing of it is shown.
  if (!instance) throw new McpError(ErrorCode.InvalidParams, "Invalid params: unknown taskId");
  return { ...task, result: await taskResultShown(ctx, { instance, target: "" }, result as Record<string, unknown>) };
}

export interface SessionTaskRelay {
  /** A `tools/call` result that is a task the route's upstream started: under our id. */
  passedTask<T>(route: Route, result: T): T;
  /** Hear the instance's `notifications/tasks/status` on `client` (once per connection). */
  tapTaskStatus(instanceId: string, client: UpstreamClient): void;
  /** Stop hearing them (the session ends). */
  untap(): void;
}

export function registerSessionTasks(ctx: ProxyContext): SessionTaskRelay | undefined {
  const tasks = ctx.options.sessionTasks;
  if (!tasks) return undefined;
  const { server, options } = ctx;
  const rewrap = (instanceId: string, task: Task): Task =>
    typeof task.taskId === "string" ? { ...task, taskId: tasks.wrap(instanceId, task.taskId) } : task;

  /** The route to the instance that owns a task of ours, or -32602 as for any unknown task. */
  const owner = async (taskId: string): Promise<{ route: Route; taskId: string }> => {
    const owned = tasks.unwrap(taskId);
    await ctx.router();
    const instance = owned && ctx.instances()?.find((i) => i.instanceId === owned.instanceId);
    if (!owned || !instance) throw new McpError(ErrorCode.InvalidParams, `Invalid params: unknown taskId`);
    return { route: { instance, target: "" }, taskId: owned.taskId };
  };

  const ask = async (
    route: Route,
    method: TaskMethod2025,
    params: Record<string, unknown>,
    extra: DownstreamExtra,
  ): Promise<Task> => {
    try {
      const client = await ctx.direct(route);
      if (!client.taskRequest2025)
        throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method} (not offered by this server)`);
      tap(route.instance.instanceId, client);
      // tasks/result waits for the task, and what the upstream asks meanwhile goes to this client (as in a call).
      return await ctx.tracked(route.instance.instanceId, client, extra, () =>
        client.taskRequest2025!(method, params, { signal: extra.signal, timeout: options.callTimeoutMs }),
      );
    } catch (error) {
      throw asRelayedError(error);
    }
  };

  server.setRequestHandler(GetTaskRequestSchema, async (request, extra) => {
    const { route, taskId } = await owner(request.params.taskId);
    const task = await ask(route, "tasks/get", { taskId }, extra);
    return rewrap(route.instance.instanceId, task) as never;
  });

  server.setRequestHandler(CancelTaskRequestSchema, async (request, extra) => {
    const { route, taskId } = await owner(request.params.taskId);
    const task = await ask(route, "tasks/cancel", { taskId }, extra);
    return rewrap(route.instance.instanceId, task) as never;
  });

  // The task's result: what the tool call would have answered, so through the guardrails and with resource links
  // named as this client reads them; its related-task `_meta` names our id.
  server.setRequestHandler(GetTaskPayloadRequestSchema, async (request, extra) => {
    const { route, taskId } = await owner(request.params.taskId);
    const result = await ask(route, "tasks/result", { taskId }, extra);
    const related = (result._meta as Record<string, unknown> | undefined)?.[RELATED_TASK_META_KEY];
    const shown =
      related !== undefined
        ? {
            ...result,
            _meta: {
              ...(result._meta as Record<string, unknown>),
              [RELATED_TASK_META_KEY]: { taskId: request.params.taskId },
            },
          }
        : result;
    return (await taskResultShown(ctx, route, shown)) as never;
  });

  // One upstream page per request, instance after instance; the cursor says where the walk stands.
  server.setRequestHandler(ListTasksRequestSchema, async (request, extra) => {
    const at = decodeCursor(request.params?.cursor);
    if (!at) throw new McpError(ErrorCode.InvalidParams, "Invalid params: unknown cursor");
    await ctx.router();
    const listing = (ctx.instances() ?? []).filter(listsTasks);
    const instance = listing[at.i];
    if (!instance) return { tasks: [] };
    const route: Route = { instance, target: "" };
    let page: Task;
    try {
      page = await ask(route, "tasks/list", at.c === undefined ? {} : { cursor: at.c }, extra);
    } catch {
      // An upstream that cannot list now is skipped, not the whole list.
      page = { tasks: [] };
    }
    const listed = Array.isArray(page.tasks) ? (page.tasks as Task[]) : [];
    const next =
      typeof page.nextCursor === "string"
        ? encodeCursor({ i: at.i, c: page.nextCursor })
        : at.i + 1 < listing.length
          ? encodeCursor({ i: at.i + 1 })
          : undefined;
    return {
      tasks: listed.map((task) => rewrap(instance.instanceId, task)),
      ...(next ? { nextCursor: next } : {}),
    } as never;
  });

  // The upstream's status notifications, on the connection the session last used for the instance.
  const taps = new Map<string, { client: UpstreamClient; off: () => void }>();
  const tap = (instanceId: string, client: UpstreamClient) => {
    const had = taps.get(instanceId);
    if (had?.client === client || !client.onTaskStatus) return;
    had?.off();
    const off = client.onTaskStatus((task) => {
      if (!server.transport) return;
      void server
        .notification({ method: "notifications/tasks/status", params: rewrap(instanceId, task) as never })
        .catch(() => {});
    });
    taps.set(instanceId, { client, off });
  };

  return {
    passedTask(route, result) {
      const task = (result as { task?: Task }).task;
      if (typeof task?.taskId !== "string") return result;
      return { ...result, task: rewrap(route.instance.instanceId, task) };
    },
    tapTaskStatus: tap,
    untap() {
      for (const t of taps.values()) t.off();
      taps.clear();
    },
  };
}
