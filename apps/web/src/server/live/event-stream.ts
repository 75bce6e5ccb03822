import "server-only";
import type { LiveEvent } from "@switchboard/core/events";
import { liveEventsReady, onTeamCalls, onTeamEvent } from "@switchboard/runtime/live-events";

/** A tab that stops reading must not grow the server's memory: past this many queued events, the oldest go. */
const MAX_QUEUED = 500;

/** What a listener registration pushes into, as an async iterable that ends when `signal` aborts. */
async function* queued<T>(
  listen: (push: (item: T) => void) => () => void,
  signal: AbortSignal | undefined,
): AsyncGenerator<T> {
  const queue: T[] = [];
  let wake: (() => void) | undefined;
  const off = listen((item) => {
    queue.push(item);
    if (queue.length > MAX_QUEUED) queue.shift();
    wake?.();
  });
  const onAbort = () => wake?.();
  signal?.addEventListener("abort", onAbort);
  try {
    await liveEventsReady();
    while (!signal?.aborted) {
      if (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
      while (queue.length > 0) yield queue.shift()!;
    }
  } finally {
    off();
    signal?.removeEventListener("abort", onAbort);
  }
}

/** Whose stream: the team's, or with `userId` one member's share of it; it ends when `signal` aborts. */
interface StreamScope {
  teamId: string;
  userId?: string;
  signal?: AbortSignal;
}

/**
 * The team's live events as an async iterable, for a tRPC subscription. With `userId`, only that member's
 * events (a member's console shows their own instances). Ends when `signal` aborts (the tab went away).
 */
export function teamEventStream({ teamId, userId, signal }: StreamScope): AsyncGenerator<LiveEvent> {
  return queued<LiveEvent>(
    (push) =>
      onTeamEvent(teamId, (event) => {
        if (!userId || event.userId === userId) push(event);
      }),
    signal,
  );
}

/** New request-log rows, as a tab may hear of them: which installations, how many. */
export interface NewCalls {
  installationIds: string[];
  count: number;
}

/**
 * The team's newly written request-log rows, for a tRPC subscription. With `userId`, only that member's calls
 * (the request log shows a member their own): another member's activity is not even counted.
 */
export function teamCallStream({ teamId, userId, signal }: StreamScope): AsyncGenerator<NewCalls> {
  return queued<NewCalls>(
    (push) =>
      onTeamCalls(teamId, (message) => {
        const calls = userId ? message.calls.filter((c) => c.userId === userId) : message.calls;
        if (calls.length === 0) return;
        push({
          installationIds: [...new Set(calls.map((c) => c.installationId))],
          count: calls.reduce((n, c) => n + c.count, 0),
        });
      }),
    signal,
  );
}
