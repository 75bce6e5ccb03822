/**
 * Splits a byte stream into newline-terminated lines, holding at most `maxLineBytes` of an unfinished one. The
 * SDK's ReadBuffer throws from `append` past its bound and copies its whole buffer on every chunk (a line that
 * arrives in 64 KiB pieces costs its size squared); this keeps the pieces and copies each line once.
 */
export class LineReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(private readonly maxLineBytes: number) {}

  /**
   * The complete lines in `chunk` (with what came before it), without their line ends; `overflow` when the line
   * being read is longer than the bound (what was read of it is dropped, and nothing more should be pushed).
   */
  push(chunk: Buffer): { lines: Buffer[]; overflow: boolean } {
    const lines: Buffer[] = [];
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(0x0a, start);
      if (end === -1) break;
      if (this.pendingBytes + end - start > this.maxLineBytes) return this.overflow(lines);
      const piece = chunk.subarray(start, end);
      const line = this.pending.length === 0 ? piece : Buffer.concat([...this.pending, piece]);
      this.pending = [];
      this.pendingBytes = 0;
      lines.push(line.at(-1) === 0x0d ? line.subarray(0, -1) : line);
      start = end + 1;
    }
    if (start < chunk.length) {
      this.pendingBytes += chunk.length - start;
      if (this.pendingBytes > this.maxLineBytes) return this.overflow(lines);
      this.pending.push(chunk.subarray(start));
    }
    return { lines, overflow: false };
  }

  clear(): void {
    this.pending = [];
    this.pendingBytes = 0;
  }

  private overflow(lines: Buffer[]): { lines: Buffer[]; overflow: true } {
    this.clear();
    return { lines, overflow: true };
  }
}
