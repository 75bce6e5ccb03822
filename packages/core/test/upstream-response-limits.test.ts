import type { IncomingMessage, ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { classifyError } from "../src/policies";
import { createUpstreamTransport, ResponseLimitError, UpstreamConnection } from "../src/upstream";
import { HttpFixture } from "./fixtures/http-fixture";
import { mcpSessions } from "./fixtures/streamable-http-server";
import { toolsOnlyServer } from "./fixtures/tools-only-server";
import { fixtureFetch } from "./helpers/egress";

/**
 * HTTP upstreams whose answers never end or are far larger than any message: a real Streamable HTTP server whose
 * tools/call answers are hostile. The call fails with a sentence naming the bound, and we stop reading: the
 * server sees the connection dropped long before it sent what it meant to (the memory is never spent).
 */
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const MiB = 1024 * 1024;

/** Writes `chunk` until the client goes away (or `total` bytes were written); resolves with what it wrote. */
function pour(res: ServerResponse, chunk: Buffer, total = Number.POSITIVE_INFINITY): Promise<number> {
  return new Promise((resolve) => {
    let written = 0;
    res.once("close", () => resolve(written));
    const go = () => {
      while (written < total && !res.destroyed) {
        written += chunk.byteLength;
        if (!res.write(chunk)) return void res.once("drain", go);
      }
      res.end();
    };
    go();
  });
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
}

/** tools/call of `name` is answered by `hostile`; everything else by a normal MCP server. */
async function hostileServer(hostile: (res: ServerResponse, id: unknown) => Promise<number>) {
  const poured: number[] = [];
  const fixture = new HttpFixture(() => {
    const { handle } = mcpSessions(toolsOnlyServer({ toolName: "big" }));
    return {
      async handle(req, res) {
        const body = req.method === "POST" ? await readJson(req) : undefined;
        const message = body as { method?: string; id?: unknown } | undefined;
        if (message?.method === "tools/call") return void poured.push(await hostile(res, message.id));
        await handle(req, res, body);
      },
      close: async () => {},
    };
  });
  await fixture.start();
  cleanups.push(() => fixture.stop());
  const connection = new UpstreamConnection({
    instanceId: "hostile-http",
    connector: () =>
      createUpstreamTransport(
        { transport: "streamable_http", url: fixture.url("/mcp"), headers: {} },
        { fetch: fixtureFetch },
      ),
  });
  cleanups.push(() => connection.close());
  return { connection, poured };
}

const call = (connection: UpstreamConnection) =>
  connection.callTool({ name: "big", arguments: {} }).then(
    () => new Error("the call succeeded"),
    (error: unknown) => error,
  );

describe("an HTTP upstream that answers with too much", () => {
  it("drops a JSON answer that never ends at the message bound", async () => {
    const { connection, poured } = await hostileServer((res, id) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`);
      return pour(res, Buffer.alloc(MiB, 0x61));
    });
    const failure = await call(connection);
    expect(failure).toBeInstanceOf(ResponseLimitError);
    expect(classifyError(failure)).toMatchObject({
      status: "error",
      retryable: false,
      kind: "limit_exceeded",
      message: "The server answered with a body over 10 MiB; the answer was dropped.",
    });
    await expect.poll(() => poured.length).toBe(1);
    // We stopped reading a little past the bound; the server could not pour more than the sockets buffer.
    expect(poured[0]).toBeLessThan(64 * MiB);
    // The connection serves on.
    expect(await connection.listTools()).toMatchObject({ tools: [{ name: "big" }] });
  });

  it("refuses an answer that declares 300 MiB without reading it", async () => {
    const { connection, poured } = await hostileServer((res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(300 * MiB) });
      return pour(res, Buffer.alloc(MiB, 0x20), 300 * MiB);
    });
    const failure = await call(connection);
    expect((failure as Error).message).toBe("The server answered with a body over 10 MiB; the answer was dropped.");
    await expect.poll(() => poured.length).toBe(1);
    expect(poured[0]).toBeLessThan(64 * MiB);
  });

  it("closes the connection on an event that never ends, failing the call with the bound's sentence", async () => {
    const { connection, poured } = await hostileServer((res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("event: message\ndata: ");
      return pour(res, Buffer.alloc(MiB, 0x61));
    });
    const failure = await call(connection);
    expect(failure).toBeInstanceOf(ResponseLimitError);
    expect((failure as Error).message).toBe(
      "The server sent an event over 10 MiB on its stream; the connection was closed.",
    );
    await expect.poll(() => poured.length).toBe(1);
    expect(poured[0]).toBeLessThan(64 * MiB);
    // A fresh session answers.
    expect(await connection.listTools()).toMatchObject({ tools: [{ name: "big" }] });
  });
});
