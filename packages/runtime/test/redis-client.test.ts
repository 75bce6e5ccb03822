import pino from "pino";
import { describe, expect, it } from "vitest";
import { freePort } from "../src/net";
import { createRedis } from "../src/redis-client";

function capturingLogger() {
  const lines: Array<{ level: number; msg: string; redis?: string; err?: { message?: string } }> = [];
  const logger = pino({ level: "debug" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe("the Redis client factory", () => {
  it("logs a connection failure as a warning once per outage, and later attempts at debug, instead of swallowing them", async () => {
    const { logger, lines } = capturingLogger();
    const port = await freePort(); // nothing listens there
    const client = createRedis(`redis://127.0.0.1:${port}`, { name: "test-cmd", logger });
    try {
      // Two failed reconnection attempts after the first failure.
      await expect
        .poll(() => lines.filter((l) => l.level === 20).length, { timeout: 15_000 })
        .toBeGreaterThanOrEqual(2);
      const warnings = lines.filter((l) => l.level === 40);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ msg: "Redis connection failed; reconnecting", redis: "test-cmd" });
      expect(warnings[0]!.err?.message).toContain("ECONNREFUSED");
    } finally {
      client.disconnect();
    }
  });

  it("connects to a running Redis without logging anything", async () => {
    const { logger, lines } = capturingLogger();
    const client = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { name: "test-ok", logger });
    try {
      expect(await client.ping()).toBe("PONG");
      expect(lines).toEqual([]);
    } finally {
      client.disconnect();
    }
  });
});
