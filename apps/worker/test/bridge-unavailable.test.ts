import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb } from "@switchboard/db/client";
import { getInstanceState } from "@switchboard/db/queries/instance-lifecycle";
import { createLogger } from "@switchboard/runtime/logger";
import { classifyError } from "@switchboard/core/policies";
import type { InstanceConnections } from "../src/connections";
import type { StdioLeases } from "../src/bridge/leases";
import { BRIDGE_UNAVAILABLE_MESSAGE, bridgePath, StdioBridge } from "../src/bridge/server";

/**
 * The bridge when what it stands on fails: PostgreSQL is unreachable (a real client pointed at a port nothing
 * listens on), so the bridge cannot tell whether the instance is one it hosts. The route must read that as the
 * worker being unavailable for now (503, retried, the instance offline), not as the server failing (500).
 */
const SECRET = randomBytes(24).toString("hex");
const unreachable = createDb("postgresql://postgres@127.0.0.1:1/switchboard");
let bridge: StdioBridge;
let url: string;

beforeAll(async () => {
  bridge = new StdioBridge({
    secret: SECRET,
    // Neither is reached: the lookup of the instance fails first.
    connections: {} as InstanceConnections,
    leases: {} as StdioLeases,
    isStdio: async (instanceId) => (await getInstanceState(unreachable, instanceId))?.transport === "stdio",
    logger: createLogger("bridge-unavailable-test", "silent"),
  });
  const { host, port } = await bridge.listen("127.0.0.1", 0);
  url = new URL(bridgePath("inst-1"), `http://${host}:${port}`).toString();
});
afterAll(async () => {
  await bridge?.close();
  await unreachable.$disconnect();
});

describe("stdio bridge without its database", () => {
  it("answers 503 in a sentence, which the route classifies as offline and retryable", async () => {
    const res = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${SECRET}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      }),
    });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("1");
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).toBe(BRIDGE_UNAVAILABLE_MESSAGE);
    // What the route's upstream transport makes of such an answer (the SDK's error carries the status).
    const { StreamableHTTPError } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    expect(classifyError(new StreamableHTTPError(503, body.error.message))).toMatchObject({
      status: "offline",
      retryable: true,
    });
  });
});
