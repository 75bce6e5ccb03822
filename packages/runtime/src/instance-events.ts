import { redisChannels } from "@switchboard/core/contracts";
import { createLiveEvent, type EventPayload, type InstanceEventType, type LiveEvent } from "@switchboard/core/events";
import type { RedisClient as Redis } from "./redis-client";

export interface EventIds {
  teamId: string;
  installationId: string;
  instanceId: string;
  userId: string;
}

/**
 * Where live events go. The worker publishes every status change and event (and the gateway's worker sweep the
 * changes it writes itself); tests can collect them.
 */
export interface EventPublisher {
  publish<T extends InstanceEventType>(type: T, ids: EventIds, payload: EventPayload<T>, at: Date): Promise<void>;
}

/** The team's channel (the console) and the member's (their MCP sessions). */
export function liveChannels(prefix: string, event: Pick<LiveEvent, "teamId" | "userId">): string[] {
  return [redisChannels.team(prefix, event.teamId), redisChannels.member(prefix, event.userId)];
}

/**
 * Redis pub/sub publisher: each event is validated against the core contract, serialised once and published
 * to the team channel (the console) and the member channel (the member's proxy sessions). Pub/sub is
 * fire-and-forget: the event row in PostgreSQL is the record, a missed live message is only a late refresh.
 */
export class RedisEventPublisher implements EventPublisher {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  async publish<T extends InstanceEventType>(
    type: T,
    ids: EventIds,
    payload: EventPayload<T>,
    at: Date,
  ): Promise<void> {
    const event = createLiveEvent(type, ids, payload, at);
    const message = JSON.stringify(event);
    try {
      await Promise.all(liveChannels(this.prefix, event).map((channel) => this.redis.publish(channel, message)));
    } catch (error) {
      this.onError(error);
    }
  }
}
