import { boundDetail, humanizeError } from "@switchboard/core/errors";
import { isMissingReference } from "@switchboard/db/errors";
import {
  ADMIN_ONLY_EVENT_DETAIL,
  statusChangeEvents,
  type EventPayload,
  type InstanceEventType,
} from "@switchboard/core/events";
import type { InstanceStatus } from "@switchboard/core/status";
import type { Db } from "@switchboard/db/client";
import type { InstanceRef } from "@switchboard/db/queries/instance";
import { insertInstanceEvent } from "@switchboard/db/queries/instance-events";
import {
  type InstanceStatusData,
  transitionInstanceStatus,
  type TransitionOutcome,
} from "@switchboard/db/queries/instance-lifecycle";
import type { Logger } from "@switchboard/runtime/logger";
import type { EventIds, EventPublisher } from "@switchboard/runtime/instance-events";
import type { InstanceSecrets } from "./secrets";

export function eventIds(ref: Pick<InstanceRef, "id" | "teamId" | "installationId" | "userId">): EventIds {
  return { teamId: ref.teamId, installationId: ref.installationId, instanceId: ref.id, userId: ref.userId };
}

/**
 * Writes status changes and events to PostgreSQL (the record) and publishes them (the live view), so no
 * processor can do one without the other. A change of tool visibility (entering or leaving online) also
 * publishes catalogue_changed on the member's channel, which the proxy turns into tools/list_changed.
 * Messages, lastError and event payloads are redacted with the instance's secrets first (core Redactor): an
 * upstream's error text often quotes the request it refused. Then they go through core's `humanizeError`: the
 * stored status message is one sentence, the raw text is kept bounded in lastError and the event's `detail`.
 */
export class InstanceRecorder {
  constructor(
    private readonly deps: {
      db: Db;
      publisher: EventPublisher;
      clock: () => Date;
      logger: Logger;
      secrets: InstanceSecrets;
    },
  ) {}

  async transition(
    instanceId: string,
    to: InstanceStatus,
    opts: {
      message?: string | null;
      onlyFrom?: readonly InstanceStatus[];
      data?: InstanceStatusData;
    } = {},
  ): Promise<TransitionOutcome> {
    let detail: string | null = null;
    if (opts.message) {
      const human = humanizeError(await this.deps.secrets.text(instanceId, opts.message));
      detail = human.detail;
      opts = { ...opts, message: human.summary };
    }
    if (typeof opts.data?.lastError === "string") {
      opts = {
        ...opts,
        data: { ...opts.data, lastError: boundDetail(await this.deps.secrets.text(instanceId, opts.data.lastError)) },
      };
    }
    const at = this.deps.clock();
    const result = await transitionInstanceStatus(this.deps.db, { instanceId, to, at, detail, ...opts });
    if (result.outcome === "changed") {
      const change = { from: result.from, to: result.to, message: opts.message, detail };
      for (const e of statusChangeEvents(change))
        await this.deps.publisher.publish(e.type, eventIds(result.ref), e.payload, at);
    } else if (result.outcome === "illegal") {
      this.deps.logger.debug({ instanceId, from: result.from, to }, "status transition skipped");
    }
    return result;
  }

  /** Records an event row and publishes it. */
  async event<T extends InstanceEventType>(
    ref: Parameters<typeof eventIds>[0],
    type: T,
    raw: EventPayload<T>,
  ): Promise<void> {
    const payload = boundRawDetail(type, await this.deps.secrets.value(ref.id, raw));
    const at = this.deps.clock();
    try {
      await insertInstanceEvent(this.deps.db, {
        instanceId: ref.id,
        type,
        payload: payload as Record<string, unknown>,
        at,
      });
    } catch (error) {
      // P2003: the instance was deleted meanwhile (removal); there is nobody left to tell.
      if (isMissingReference(error)) return;
      throw error;
    }
    await this.deps.publisher.publish(type, eventIds(ref), payload, at);
  }

  /** Publishes without a row: derived notifications the event log does not need. */
  async publishOnly<T extends InstanceEventType>(
    ref: Parameters<typeof eventIds>[0],
    type: T,
    payload: EventPayload<T>,
  ): Promise<void> {
    await this.deps.publisher.publish(
      type,
      eventIds(ref),
      boundRawDetail(type, await this.deps.secrets.value(ref.id, payload)),
      this.deps.clock(),
    );
  }
}

/** The raw-text fields of an event (an upstream's error, a stderr tail) bounded and cleaned like every detail. */
function boundRawDetail<P>(type: InstanceEventType, payload: P): P {
  const keys = ADMIN_ONLY_EVENT_DETAIL[type];
  if (!keys || typeof payload !== "object" || payload === null) return payload;
  const out: Record<string, unknown> = { ...(payload as Record<string, unknown>) };
  for (const key of keys) if (typeof out[key] === "string") out[key] = boundDetail(out[key]);
  return out as P;
}
