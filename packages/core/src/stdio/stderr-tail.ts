/** Keeps the last lines of a process's stderr for the console: bounded by line count and by bytes. */
export interface StderrTailLimits {
  maxLines: number;
  maxBytes: number;
}

export const DEFAULT_STDERR_TAIL: StderrTailLimits = { maxLines: 50, maxBytes: 8 * 1024 };

export class StderrTail {
  private lines: string[] = [];
  private partial = "";
  private bytes = 0;

  constructor(private readonly limits: StderrTailLimits = DEFAULT_STDERR_TAIL) {}

  push(chunk: Buffer | string): void {
    const text = this.partial + chunk.toString();
    const parts = text.split("\n");
    this.partial = parts.pop() ?? "";
    for (const line of parts) this.append(line.replace(/\r$/, ""));
    // A line that never ends must not grow without bound.
    if (Buffer.byteLength(this.partial) > this.limits.maxBytes) {
      this.append(this.partial);
      this.partial = "";
    }
  }

  /** The kept lines, oldest first, including an unterminated last line. */
  text(): string {
    const all = this.partial ? [...this.lines, this.partial] : this.lines;
    return all.join("\n");
  }

  private append(line: string): void {
    let kept = line;
    // A line counts its newline too: cut an overlong one to fit with it, or the loop below drops it whole and
    // the tail of a process that wrote one long line is empty.
    const room = Math.max(0, this.limits.maxBytes - 1);
    if (Buffer.byteLength(kept) > room) {
      kept = Buffer.from(kept).subarray(-room).toString();
    }
    this.lines.push(kept);
    this.bytes += Buffer.byteLength(kept) + 1;
    while (this.lines.length > this.limits.maxLines || this.bytes > this.limits.maxBytes) {
      const dropped = this.lines.shift();
      if (dropped === undefined) break;
      this.bytes -= Buffer.byteLength(dropped) + 1;
    }
  }
}
