import { LimitError, sizeText } from "../errors/limit";

/**
 * What a stdio server may do to the process that hosts it. Anything a team installs runs behind these pipes, so
 * what it writes is untrusted: a line that never ends, a flood, bytes that are not JSON, pipes closed under us,
 * or an input it never reads would otherwise cost the worker its memory, its event loop or its life.
 */
export interface StdioLimits {
  /** One line (one JSON-RPC message) on stdout, without its newline. */
  maxLineBytes: number;
  /** The window the rate limits below count in. */
  windowMs: number;
  /** Messages read from stdout within one window. */
  maxMessagesPerWindow: number;
  /** Bytes read from stdout within one window. */
  maxBytesPerWindow: number;
  /** Lines on stdout that are not MCP messages within one window (a banner or a stray log line is tolerated). */
  maxInvalidLinesPerWindow: number;
  /** Bytes we wrote to stdin that the server has not read yet. */
  maxPendingInputBytes: number;
  /** After stdout or stdin closed, how long the process has to exit before a still-running process is stopped. */
  closedPipeGraceMs: number;
  /** Bytes of stderr read per window; beyond it the pipe is paused until the window ends (the writer waits). */
  maxStderrBytesPerWindow: number;
}

const MiB = 1024 * 1024;
const size = sizeText;

export const DEFAULT_STDIO_LIMITS: StdioLimits = {
  // The SDK's own ReadBuffer bound.
  maxLineBytes: 10 * MiB,
  windowMs: 10_000,
  maxMessagesPerWindow: 10_000,
  maxBytesPerWindow: 100 * MiB,
  maxInvalidLinesPerWindow: 1_000,
  maxPendingInputBytes: 16 * MiB,
  closedPipeGraceMs: 2_000,
  maxStderrBytesPerWindow: 10 * MiB,
};

export type StdioLimitKind =
  | "line_too_long"
  | "too_many_messages"
  | "too_much_output"
  | "not_mcp"
  | "input_not_read"
  | "output_closed"
  | "input_closed";

function seconds(ms: number): string {
  const s = ms / 1000;
  return `${s.toLocaleString("en")} second${s === 1 ? "" : "s"}`;
}

/** One sentence per limit: what the server did and that it was stopped. */
export function stdioLimitMessage(kind: StdioLimitKind, limits: StdioLimits = DEFAULT_STDIO_LIMITS): string {
  switch (kind) {
    case "line_too_long":
      return `The server wrote a line over ${size(limits.maxLineBytes)} without a newline; it was stopped.`;
    case "too_many_messages":
      return `The server wrote more than ${limits.maxMessagesPerWindow.toLocaleString("en")} messages in ${seconds(limits.windowMs)}; it was stopped.`;
    case "too_much_output":
      return `The server wrote more than ${size(limits.maxBytesPerWindow)} in ${seconds(limits.windowMs)}; it was stopped.`;
    case "not_mcp":
      return `The server wrote more than ${limits.maxInvalidLinesPerWindow.toLocaleString("en")} lines that are not MCP messages in ${seconds(limits.windowMs)}; it was stopped.`;
    case "input_not_read":
      return `The server stopped reading its input (over ${size(limits.maxPendingInputBytes)} waiting); it was stopped.`;
    case "output_closed":
      return "The server closed its output but kept running; it was stopped.";
    case "input_closed":
      return "The server closed its input but kept running; it was stopped.";
  }
}

/** A stdio server broke one of the limits: its process is stopped and this is the instance's error. */
export class StdioLimitError extends LimitError<StdioLimitKind> {
  override readonly name = "StdioLimitError";
  constructor(kind: StdioLimitKind, limits: StdioLimits = DEFAULT_STDIO_LIMITS) {
    super(kind, stdioLimitMessage(kind, limits));
  }
}

/** Counts within fixed windows of `windowMs`: cheap enough to run on every chunk of a flood. */
export class WindowCounter {
  private startedAt = Number.NEGATIVE_INFINITY;
  private total = 0;

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Adds `amount` and returns the total of the current window. */
  add(amount: number): number {
    const now = this.now();
    if (now - this.startedAt >= this.windowMs) {
      this.startedAt = now;
      this.total = 0;
    }
    this.total += amount;
    return this.total;
  }

  /** Milliseconds until the current window ends. */
  remainingMs(): number {
    return Math.max(0, this.startedAt + this.windowMs - this.now());
  }
}
