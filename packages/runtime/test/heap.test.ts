import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const FIXTURE = new URL("./fixtures/heap-growth.ts", import.meta.url).pathname;

/**
 * The growing factors V8 used after the fixture's last four full collections (its `Limit: ... (factor)` lines),
 * which come after it applied the setting: a collection while the fixture's modules load, before that, uses V8's
 * own factor.
 */
async function factors(percent: string | undefined): Promise<number[]> {
  const env = { ...process.env, HEAP_GROWING_PERCENT: percent };
  if (percent === undefined) delete env.HEAP_GROWING_PERCENT;
  const { stdout } = await run(process.execPath, ["--expose-gc", "--trace-gc-verbose", "--import", "tsx", FIXTURE], {
    env,
    maxBuffer: 64 * 1024 * 1024,
  });
  return [...stdout.matchAll(/\[HeapController\] Limit: .* \(([\d.]+)\)/g)].map((m) => Number(m[1])).slice(-4);
}

describe("HEAP_GROWING_PERCENT", () => {
  it("fixes V8's heap growing factor at start, 20% by default", async () => {
    const used = await factors(undefined);
    expect(used).toHaveLength(4);
    expect(new Set(used)).toEqual(new Set([1.2]));
    expect(new Set(await factors("50"))).toEqual(new Set([1.5]));
  });

  it("leaves V8's own factor at 0", async () => {
    const used = await factors("0");
    expect(used).toHaveLength(4);
    // V8's own choice for a program that allocates this fast is its largest factor, never the fixed one.
    expect(used.some((f) => f !== 1.2 && f !== 1.5)).toBe(true);
  });
});
