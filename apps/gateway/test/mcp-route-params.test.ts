import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACCEPT, initializeBody, openRawSession, startRouteTeam, stopRouteTeam } from "./support/route-team";

/**
 * Params a method's schema refuses answer -32602 with one sentence naming the problem, on both revisions: a
 * 2025-11-25 session and a 2026-07-28 request, for every method that takes params, not only tools/call. Before,
 * the SDK's own parse failed inside its handler: -32603 "Internal error" with zod's issue list as the message.
 */

let ctx: Awaited<ReturnType<typeof startRouteTeam>>;
let token: string;
let session: string;

beforeAll(async () => {
  ctx = await startRouteTeam();
  token = await ctx.newToken("params");
  session = await openRawSession(ctx.base, token);
});

afterAll(async () => {
  await stopRouteTeam(ctx?.upstream);
});

const META_2026 = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** Method, bad params, the sentence both revisions answer, and whether 2026-07-28 serves the method. */
const CASES: [string, Record<string, unknown>, string, boolean][] = [
  ["tools/call", { name: 5 }, "Invalid params: name must be a string.", true],
  ["tools/call", {}, "Invalid params: name is required.", true],
  ["tools/call", { name: "my-demo-echo", arguments: "text" }, "Invalid params: arguments must be an object.", true],
  ["resources/read", { uri: 5 }, "Invalid params: uri must be a string.", true],
  ["prompts/get", { name: "p", arguments: { a: 5 } }, "Invalid params: arguments.a must be a string.", true],
  [
    "completion/complete",
    { ref: { type: "ref/prompt", name: "p" }, argument: { name: "a" } },
    "Invalid params: argument.value is required.",
    true,
  ],
  ["tools/list", { cursor: 5 }, "Invalid params: cursor must be a string.", true],
  ["resources/list", { cursor: [] }, "Invalid params: cursor must be a string.", true],
  ["resources/templates/list", { cursor: {} }, "Invalid params: cursor must be a string.", true],
  ["prompts/list", { cursor: true }, "Invalid params: cursor must be a string.", true],
  ["tasks/get", { taskId: 5 }, "Invalid params: taskId must be a string.", true],
  // Only 2025-11-25 sessions have these.
  ["resources/subscribe", { uri: 5 }, "Invalid params: uri must be a string.", false],
  [
    "logging/setLevel",
    { level: 3 },
    'Invalid params: level must be one of "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency".',
    false,
  ],
];

async function post(body: unknown, headers: Record<string, string>) {
  const res = await fetch(`${ctx.base}/api/mcp`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: ACCEPT, ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

const inSession = (method: string, params: unknown) =>
  post({ jsonrpc: "2.0", id: 7, method, params }, { "mcp-session-id": session });

function stateless(method: string, params: Record<string, unknown>) {
  const name: Record<string, string> = typeof params.name === "string" ? { "mcp-name": params.name } : {};
  return post(
    { jsonrpc: "2.0", id: "m", method, params: { ...params, _meta: META_2026 } },
    { "mcp-protocol-version": "2026-07-28", "mcp-method": method, ...name },
  );
}

describe("bad params on the MCP route", () => {
  it.each(CASES.map(([method, params, message, rev2026]) => ({ method, params, message, rev2026 })))(
    "answers $method $params with -32602 and one sentence, in a 2025-11-25 session and a 2026-07-28 request",
    async ({ method, params, message, rev2026 }) => {
      // As any JSON-RPC error of a session request, inside a 200; as the revision's other -32602 answers, a 400.
      expect(await inSession(method, params)).toEqual({
        status: 200,
        body: { jsonrpc: "2.0", id: 7, error: { code: -32602, message } },
      });
      if (!rev2026) return;
      expect(await stateless(method, params)).toEqual({
        status: 400,
        body: { jsonrpc: "2.0", id: "m", error: { code: -32602, message } },
      });
    },
  );

  it("answers each bad request of a batch on its own and serves the good ones, and keeps the session", async () => {
    const res = await fetch(`${ctx.base}/api/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json",
        "mcp-session-id": session,
      },
      body: JSON.stringify([
        { jsonrpc: "2.0", id: "bad", method: "tools/call", params: { name: ["my-demo-echo"] } },
        {
          jsonrpc: "2.0",
          id: "good",
          method: "tools/call",
          params: { name: "my-demo-echo", arguments: { text: "ok" } },
        },
      ]),
    });
    const answers = (await res.json()) as { id: string; error?: { code: number; message: string }; result?: unknown }[];
    expect(answers.find((a) => a.id === "bad")).toEqual({
      jsonrpc: "2.0",
      id: "bad",
      error: { code: -32602, message: "Invalid params: name must be a string." },
    });
    expect(JSON.stringify(answers.find((a) => a.id === "good")?.result)).toContain("echo: ok");
    expect((await inSession("ping", {})).body).toMatchObject({ result: {} });
  });

  it("refuses an initialize with bad params in the same sentence, without starting a session", async () => {
    const res = await fetch(`${ctx.base}/api/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: ACCEPT },
      body: JSON.stringify({
        ...initializeBody(3),
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: 1 } },
      }),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    expect(await res.json()).toEqual({
      jsonrpc: "2.0",
      id: 3,
      error: { code: -32602, message: "Invalid params: clientInfo.version must be a string." },
    });
  });

  it("names a client's key in a bounded, printable form", async () => {
    const key = `k\u0001${"x".repeat(500)}`;
    const { body } = await inSession("prompts/get", { name: "p", arguments: { [key]: 1 } });
    const message = (body as { error: { message: string } }).error.message;
    expect(message).toBe(`Invalid params: arguments.k?${"x".repeat(38)}… must be a string.`);
  });
});
