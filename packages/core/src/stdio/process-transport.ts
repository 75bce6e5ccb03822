import type { Readable, Writable } from "node:stream";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { LineReader } from "./line-reader";
import { DEFAULT_STDIO_LIMITS, StdioLimitError, WindowCounter, type StdioLimitKind, type StdioLimits } from "./limits";

/** Lets the owner of the process watch traffic (idle tracking) and decide what closing means. */
export interface TransportHooks {
  onSend?: (message: JSONRPCMessage) => void;
  onReceive?: (message: JSONRPCMessage) => void;
  onClose?: () => Promise<void>;
  /**
   * The server broke one of the limits (`StdioLimits`): the transport has closed itself and stopped reading;
   * the owner stops the process. Requests in flight fail, and `fault` says why.
   */
  onFault?: (error: StdioLimitError) => void;
}

/**
 * MCP transport over the pipes of a process somebody else spawned. Unlike the SDK's StdioClientTransport it does
 * not own the process: the spawner keeps the pid (for group kill) and decides what `close()` means via `onClose`.
 * What the process writes is untrusted: the limits bound what one line, a flood, non-MCP output, closed pipes
 * or an unread input can cost, and breaking one ends the transport with a `StdioLimitError` instead of taking
 * the host process down.
 */
export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  protocolVersion?: string;
  /** Why the transport closed itself, if the server broke a limit. */
  fault: StdioLimitError | undefined;

  private readonly reader: LineReader;
  private readonly messages: WindowCounter;
  private readonly bytes: WindowCounter;
  private readonly invalid: WindowCounter;
  private closed = false;
  private closing = false;
  private pipeTimer: ReturnType<typeof setTimeout> | undefined;
  private drain: Promise<void> | undefined;
  private readonly finished: Array<() => void> = [];

  private readonly onData = (chunk: Buffer) => {
    if (this.closed) return;
    if (this.bytes.add(chunk.length) > this.limits.maxBytesPerWindow) return this.fail("too_much_output");
    const { lines, overflow } = this.reader.push(chunk);
    for (const line of lines) {
      if (this.closed) return; // a handler of the previous message closed us
      if (this.messages.add(1) > this.limits.maxMessagesPerWindow) return this.fail("too_many_messages");
      let message: JSONRPCMessage;
      try {
        message = deserializeMessage(line.toString("utf8"));
      } catch (error) {
        if (this.invalid.add(1) > this.limits.maxInvalidLinesPerWindow) return this.fail("not_mcp");
        this.onerror?.(error as Error);
        continue;
      }
      try {
        this.hooks.onReceive?.(message);
        this.onmessage?.(message);
      } catch (error) {
        // Nothing a message leads to may escape into the stream's event (an uncaught exception of the host).
        this.onerror?.(error as Error);
      }
    }
    if (overflow) this.fail("line_too_long");
  };
  private readonly onOutputClosed = () => this.pipeClosed("output_closed");
  private readonly onInputError = () => this.pipeClosed("input_closed");

  constructor(
    private readonly io: { stdin: Writable; stdout: Readable; exited: Promise<unknown> },
    private readonly hooks: TransportHooks = {},
    private readonly limits: StdioLimits = DEFAULT_STDIO_LIMITS,
  ) {
    this.reader = new LineReader(limits.maxLineBytes);
    this.messages = new WindowCounter(limits.windowMs);
    this.bytes = new WindowCounter(limits.windowMs);
    this.invalid = new WindowCounter(limits.windowMs);
  }

  async start(): Promise<void> {
    this.io.stdout.on("data", this.onData);
    this.io.stdout.once("end", this.onOutputClosed);
    this.io.stdin.on("error", this.onInputError);
    void this.io.exited.then(() => this.finish());
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const { stdin } = this.io;
    if (this.closed || stdin.destroyed || !stdin.writable) throw this.fault ?? new Error("Not connected");
    const data = serializeMessage(message);
    // What the server has not read yet stays in our memory: a server that stops reading is stopped. A single
    // message larger than the bound still goes when nothing else waits (the route bounds request bodies).
    if (stdin.writableLength > 0 && stdin.writableLength + Buffer.byteLength(data) > this.limits.maxPendingInputBytes) {
      this.fail("input_not_read");
      throw this.fault;
    }
    this.hooks.onSend?.(message);
    if (!stdin.write(data)) await this.drained();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closing = true;
    await this.hooks.onClose?.();
    this.finish();
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  /** One wait for the pipe to drain, shared by every send behind it; also over when the transport closes. */
  private drained(): Promise<void> {
    this.drain ??= new Promise<void>((resolve) => {
      const done = () => {
        this.io.stdin.off("drain", done);
        this.drain = undefined;
        resolve();
      };
      this.io.stdin.once("drain", done);
      this.finished.push(done);
    });
    return this.drain;
  }

  /**
   * A pipe closed: normally the process is exiting, and its exit follows at once (a crash, reported as such).
   * A process that stays up without its output (or its input) is of no use and is stopped.
   */
  private pipeClosed(kind: StdioLimitKind): void {
    if (this.closed || this.closing || this.pipeTimer) return;
    this.pipeTimer = setTimeout(() => this.fail(kind), this.limits.closedPipeGraceMs);
    this.pipeTimer.unref?.();
  }

  private fail(kind: StdioLimitKind): void {
    if (this.closed || this.fault) return;
    this.fault = new StdioLimitError(kind, this.limits);
    // Stop reading: the flood waits in the pipe (its writer blocks) until the owner's kill ends it.
    this.io.stdout.off("data", this.onData);
    this.io.stdout.pause();
    this.hooks.onFault?.(this.fault);
    this.onerror?.(this.fault);
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.pipeTimer);
    this.io.stdout.off("data", this.onData);
    this.io.stdout.off("end", this.onOutputClosed);
    this.io.stdin.off("error", this.onInputError);
    this.reader.clear();
    for (const done of this.finished.splice(0)) done();
    this.onclose?.();
  }
}
