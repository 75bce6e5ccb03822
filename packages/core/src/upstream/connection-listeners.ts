import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  TaskStatusNotificationSchema,
  ToolListChangedNotificationSchema,
  type LoggingMessageNotification,
} from "@modelcontextprotocol/sdk/types.js";

export type ResourceUpdatedListener = (uri: string) => void;
export type LoggingListener = (params: LoggingMessageNotification["params"]) => void;
/** A 2025 upstream's `notifications/tasks/status`: the task, under the upstream's id. */
export type TaskStatusListener = (task: Record<string, unknown> & { taskId: string }) => void;
export type ListKind = "tools" | "resources" | "prompts";
export type ListChangedListener = (kind: ListKind) => void;

/**
 * Who listens to a connection's notifications. The listeners are the connection's, not a session's: they hear
 * every session it opens, whichever revision the upstream speaks.
 */
export class ConnectionListeners {
  readonly logging = new Set<LoggingListener>();
  readonly listChanged = new Set<ListChangedListener>();
  readonly resourceUpdated = new Set<ResourceUpdatedListener>();
  readonly taskStatus = new Set<TaskStatusListener>();

  emitLogging(params: LoggingMessageNotification["params"]): void {
    for (const listener of this.logging) listener(params);
  }

  emitListChanged(kind: ListKind): void {
    for (const listener of this.listChanged) listener(kind);
  }

  emitResourceUpdated(uri: string): void {
    for (const listener of this.resourceUpdated) listener(uri);
  }
}

/** Route a 2025 upstream's notifications on `client` to the connection's listeners. */
export function hear2025Notifications(client: Client, listeners: ConnectionListeners): void {
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    listeners.emitLogging(notification.params);
  });
  const changed = (kind: ListKind) => () => listeners.emitListChanged(kind);
  client.setNotificationHandler(ToolListChangedNotificationSchema, changed("tools"));
  client.setNotificationHandler(ResourceListChangedNotificationSchema, changed("resources"));
  client.setNotificationHandler(PromptListChangedNotificationSchema, changed("prompts"));
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    listeners.emitResourceUpdated(notification.params.uri);
  });
  client.setNotificationHandler(TaskStatusNotificationSchema, (notification) => {
    for (const listener of listeners.taskStatus) listener(notification.params as never);
  });
}
