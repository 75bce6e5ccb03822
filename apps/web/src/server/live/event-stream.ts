import "server-only";
import type { LiveEvent } from "@switchboard/core/events";
import { liveEventsReady, onTeamEvent } from "@switchboard/runtime/live-events";

/** A tab that stops reading must not grow the server's memory: past this many queued events, the oldest go. */
const MAX_QUEUED = 500;

/**
 * The team's live events as an async iterable, for a tRPC subscription. With `userId`, only that member's
 * events (a member's console shows their own instances). Ends when `signal` aborts (the tab went away).
 */
export async function* teamEventStream({
  teamId,
  userId,
  signal,
}: {
  teamId: string;
  userId?: string;
  signal?: AbortSignal;
}): AsyncGenerator<LiveEvent> {
  const queue: LiveEvent[] = [];
  let wake: (() => void) | undefined;
  const off = onTeamEvent(teamId, (event) => {
    if (userId && event.userId !== userId) return;
    queue.push(event);
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
