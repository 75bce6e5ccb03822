import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/**
 * Tracks whether a process is busy: requests we sent that are not answered yet. A process is only idle when
 * nothing is pending, so a slow tool call is never cut short by the idle stop.
 */
export class Activity {
  private readonly pending = new Set<string | number>();
  /** Requests that do not count as use (e.g. health pings); neither they nor their answers move `lastAt`. */
  private readonly quiet = new Set<string | number>();
  lastAt: number;

  constructor(now: number) {
    this.lastAt = now;
  }

  sent(message: JSONRPCMessage, now: number, counts = true): void {
    if (counts) this.lastAt = now;
    if ("method" in message && "id" in message) {
      this.pending.add(message.id);
      if (!counts) this.quiet.add(message.id);
    }
  }

  received(message: JSONRPCMessage, now: number): void {
    if (!("method" in message) && "id" in message && message.id !== undefined) {
      this.pending.delete(message.id);
      if (this.quiet.delete(message.id)) return;
    }
    this.lastAt = now;
  }

  get busy(): boolean {
    return this.pending.size > 0;
  }
}
