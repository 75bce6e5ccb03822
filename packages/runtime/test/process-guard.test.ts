import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { isSurvivable } from "../src/process-guard";

const run = promisify(execFile);
const FIXTURE = path.join(import.meta.dirname, "fixtures", "guarded-process.ts");

/** Runs the guarded fixture in its own process: its exit code and its output lines. */
async function guarded(mode: string): Promise<{ code: number; lines: string[] }> {
  const result = await run(process.execPath, ["--import", "tsx", FIXTURE, mode]).then(
    (r) => ({ code: 0, stdout: r.stdout }),
    (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }),
  );
  return { code: result.code, lines: result.stdout.trim().split("\n") };
}

describe("the top-level guard of the gateway and the worker", () => {
  it("logs an unhandled rejection and lives on", async () => {
    const { code, lines } = await guarded("rejection");
    expect(code).toBe(0);
    expect(JSON.parse(lines[0]!)).toEqual({
      level: "error",
      msg: "unhandled promise rejection; the process goes on",
      err: "Error: a lost promise",
    });
    expect(lines.at(-1)).toBe("alive");
  });

  it("survives an error of one connection that nobody listened for", async () => {
    const { code, lines } = await guarded("connection");
    expect(code).toBe(0);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: "error", err: "Error: write EPIPE" });
    expect(lines.at(-1)).toBe("alive");
  });

  it("stops cleanly through the shutdown, exit code 1, on any other uncaught exception", async () => {
    const { code, lines } = await guarded("bug");
    expect(code).toBe(1);
    expect(JSON.parse(lines[0]!)).toEqual({
      level: "fatal",
      msg: "uncaught exception; stopping cleanly",
      err: "TypeError: a bug",
    });
    expect(JSON.parse(lines[1]!)).toEqual({ shutdown: "uncaughtException", exitCode: 1 });
  });

  it("counts only connection-level error codes as survivable", () => {
    expect(isSurvivable(Object.assign(new Error("x"), { code: "ECONNRESET" }))).toBe(true);
    expect(isSurvivable(new RangeError("Maximum call stack size exceeded"))).toBe(false);
    expect(isSurvivable(Object.assign(new Error("x"), { code: "ERR_INVALID_ARG_TYPE" }))).toBe(false);
    expect(isSurvivable("a string")).toBe(false);
  });
});
