import type { Readable, Writable } from "node:stream";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** Lets the owner of the process watch traffic (idle tracking) and decide what closing means. */
export interface TransportHooks {
  onSend?: (message: JSONRPCMessage) => void;
  onReceive?: (message: JSONRPCMessage) => void;
  onClose?: () => Promise<void>;
}

/**
 * MCP transport over the pipes of a process somebody else spawned. Unlike the SDK's StdioClientTransport it does
 * not own the process: the spawner keeps the pid (for group kill) and decides what `close()` means via `onClose`.
 */
export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  protocolVersion?: string;

  private readonly buffer = new ReadBuffer();
  private closed = false;
  private readonly onData = (chunk: Buffer) => {
    this.buffer.append(chunk);
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (error) {
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) break;
      this.hooks.onReceive?.(message);
      this.onmessage?.(message);
    }
  };

  constructor(
    private readonly io: { stdin: Writable; stdout: Readable; exited: Promise<unknown> },
    private readonly hooks: TransportHooks = {},
  ) {}

  async start(): Promise<void> {
    this.io.stdout.on("data", this.onData);
    void this.io.exited.then(() => this.finish());
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed || this.io.stdin.destroyed || !this.io.stdin.writable) throw new Error("Not connected");
    this.hooks.onSend?.(message);
    if (!this.io.stdin.write(serializeMessage(message))) {
      await new Promise<void>((resolve) => this.io.stdin.once("drain", resolve));
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.hooks.onClose?.();
    this.finish();
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.io.stdout.off("data", this.onData);
    this.buffer.clear();
    this.onclose?.();
  }
}
