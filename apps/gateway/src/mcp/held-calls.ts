import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import type { ServerResponse } from "node:http";
import { redisChannels } from "@switchboard/core/contracts";
import { env } from "@switchboard/runtime/env";
import { onProcessChannel, publishToProcess } from "@switchboard/runtime/live-events";
import { logger } from "@switchboard/runtime/logger";
import { z } from "zod";
import { gatewayProcessId } from "./sessions";

/**
 * A 2026 client's retry of a call held for its input (a 2025 upstream asked something mid-call) may reach any
 * gateway process, while the upstream call waits in the one that answered `input_required` (named, signed, in the
 * `requestState`). The process the retry reached publishes it on the holder's own channel; the holder hands the
 * answers to its waiting call and publishes what the call answers next (another `input_required`, or the result)
 * back on the asking process's reply channel, under a one-time reply id. Nothing is stored: the answers exist in
 * Redis only as the one message that carries them.
 */

const requestId = z.union([z.string(), z.number()]);

const retrySchema = z.object({
  holdId: z.string().max(100),
  binding: z.string().max(10_000),
  id: requestId,
  answers: z.record(z.string(), z.unknown()),
  replyTo: z.string().max(100),
  replyId: z.string().max(100),
});
export type RelayedRetry = Pick<z.infer<typeof retrySchema>, "holdId" | "binding" | "id" | "answers">;

const replySchema = z.object({
  replyId: z.string(),
  status: z.number().int().min(200).max(499),
  body: z.string(),
});
export interface HeldReply {
  status: number;
  body: string;
}

const prefix = () => env().REDIS_PREFIX;
const replies = new Map<string, (reply: HeldReply) => void>();
let listening: Promise<void> | undefined;

/**
 * A stand-in for the HTTP response of a retry that reached another process: the held call writes its next
 * answer here (always as plain JSON: related notifications are not relayed across processes) and it goes back.
 */
class RelayedResponse extends EventEmitter {
  destroyed = false;
  private status = 200;
  constructor(private readonly sent: (reply: HeldReply) => void) {
    super();
  }
  writeHead(status: number): this {
    this.status = status;
    return this;
  }
  write(): boolean {
    return true;
  }
  end(body?: string): this {
    if (this.destroyed) return this;
    this.destroyed = true;
    this.sent({ status: this.status, body: body ?? "" });
    this.emit("close");
    return this;
  }
}

/**
 * Listens, before this process hands out a `requestState` that names it, for retries other processes relay to it
 * (`continueHere` writes the held call's next answer to the response it is given) and for replies to its own.
 */
export function listenForHeldCalls(continueHere: (retry: RelayedRetry, res: ServerResponse) => void): Promise<void> {
  listening ??= Promise.all([
    onProcessChannel(redisChannels.mcpHeldRetries(prefix(), gatewayProcessId()), (message) => {
      const retry = retrySchema.safeParse(message);
      if (!retry.success) return;
      const { replyTo, replyId, ...rest } = retry.data;
      const res = new RelayedResponse(({ status, body }) => {
        void publishToProcess(
          redisChannels.mcpHeldReplies(prefix(), replyTo),
          JSON.stringify({ replyId, status, body }),
        ).catch((err: unknown) => logger.warn({ err }, "could not send a held call's answer to the process asking"));
      });
      continueHere(rest, res as unknown as ServerResponse);
    }),
    onProcessChannel(redisChannels.mcpHeldReplies(prefix(), gatewayProcessId()), (message) => {
      const reply = replySchema.safeParse(message);
      if (reply.success) replies.get(reply.data.replyId)?.(reply.data);
    }),
  ])
    .then(() => undefined)
    .catch((err: unknown) => {
      listening = undefined;
      throw err;
    });
  return listening;
}

/**
 * Relays a retry to the process holding its call and waits, at most `timeoutMs`, for what the call answers.
 * A refusal (one sentence for the client) when that process is gone, cannot be reached, or does not answer.
 */
export async function continueElsewhere(
  holder: string,
  retry: RelayedRetry,
  timeoutMs: number,
): Promise<HeldReply | { refused: string }> {
  const replyId = randomUUID();
  let timer: NodeJS.Timeout | undefined;
  const answered = new Promise<HeldReply | undefined>((resolve) => {
    replies.set(replyId, resolve);
    timer = setTimeout(() => resolve(undefined), timeoutMs);
  });
  try {
    const message = { ...retry, replyTo: gatewayProcessId(), replyId };
    const receivers = await publishToProcess(redisChannels.mcpHeldRetries(prefix(), holder), JSON.stringify(message));
    if (receivers === 0) return { refused: "the gateway process that held this call is gone" };
    const reply = await answered;
    return reply ?? { refused: "the gateway process that holds this call did not answer in time" };
  } catch (err) {
    logger.warn({ err }, "could not relay a retry to the gateway process holding its call");
    return { refused: "the gateway process that holds this call could not be reached" };
  } finally {
    clearTimeout(timer);
    replies.delete(replyId);
  }
}
