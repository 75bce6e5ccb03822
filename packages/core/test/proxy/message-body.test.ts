import { describe, expect, it } from "vitest";
import { messageBody, reusableList } from "../../src/proxy/message-body";
import { buildRouter } from "../../src/proxy/router";

const text = (body: string | Buffer) => (typeof body === "string" ? body : body.toString("utf8"));

describe("messageBody", () => {
  const tools = reusableList(
    Array.from({ length: 50 }, (_, k) => ({
      name: `tool_${k}`,
      description: `Tool ${k} — “quoted” \u2028 and \\ backslashes`,
      inputSchema: { type: "object", properties: { q: { type: "string" } } },
    })),
  );

  it("writes exactly what JSON.stringify writes, a reusable list or not", () => {
    const messages = [
      { result: { tools }, jsonrpc: "2.0", id: 7 },
      { result: { tools, nextCursor: 'c"1', _meta: { ttl: 60 }, skipped: undefined }, jsonrpc: "2.0", id: 'a"b' },
      { jsonrpc: "2.0", id: null, result: { tools: [...tools] } },
      { jsonrpc: "2.0", id: 1, error: { code: -32601, message: "Method not found" } },
      { jsonrpc: "2.0", method: "notifications/tools/list_changed" },
      { jsonrpc: "2.0", id: 2, result: {} },
    ];
    for (const message of messages) expect(text(messageBody(message))).toBe(JSON.stringify(message));
  });

  it("answers the same bytes for a reusable list every time, and plain text for the rest", () => {
    const first = messageBody({ result: { tools }, jsonrpc: "2.0", id: 1 });
    const second = messageBody({ result: { tools }, jsonrpc: "2.0", id: 2 });
    expect(Buffer.isBuffer(first)).toBe(true);
    expect(JSON.parse(text(second))).toEqual({ result: { tools }, jsonrpc: "2.0", id: 2 });
    expect(typeof messageBody({ result: { tools: [...tools] }, jsonrpc: "2.0", id: 3 })).toBe("string");
  });
});

describe("a router's lists", () => {
  it("are made once per router: the same array each time", () => {
    const instance = {
      instanceId: "i1",
      installationId: "n1",
      slug: "echo",
      name: "Echo",
      status: "online",
      tools: [{ name: "echo", inputSchema: { type: "object" } }],
      resources: [],
      resourceTemplates: [],
      prompts: [],
    };
    const router = buildRouter("namespaced", [instance as never]);
    expect(router.tools()).toHaveLength(1);
    expect(router.tools()).toBe(router.tools());
    expect(router.prompts()).toBe(router.prompts());
  });
});
