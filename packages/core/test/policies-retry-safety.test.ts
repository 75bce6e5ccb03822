import { McpError, ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { isRepeatableTool, markNotSent, requestDelivery, retrySafety, type Delivery } from "../src/policies";
import { nodeFetch } from "../src/upstream/node-fetch";
import { closedPort, httpServer } from "./helpers/net";

const coded = (code: string) => Object.assign(new Error(code), { code });

describe("retrySafety (the README's table)", () => {
  it.each<[Delivery, boolean, boolean, ReturnType<typeof retrySafety>]>([
    ["not_sent", false, false, { retry: true, why: "not_sent" }],
    ["not_sent", true, false, { retry: true, why: "not_sent" }],
    ["maybe_sent", true, false, { retry: true, why: "repeatable" }],
    ["maybe_sent", false, false, { retry: false, why: "may_have_run" }],
    ["maybe_sent", true, true, { retry: false, why: "asked_client" }],
    ["not_sent", true, true, { retry: false, why: "asked_client" }],
  ])("delivery %s, repeatable %s, asked the client %s -> %o", (delivery, repeatable, askedClient, expected) => {
    expect(retrySafety({ delivery, repeatable, askedClient })).toEqual(expected);
  });

  it("counts a tool as repeatable only when annotated read-only or idempotent", () => {
    expect(isRepeatableTool({ readOnlyHint: true })).toBe(true);
    expect(isRepeatableTool({ idempotentHint: true })).toBe(true);
    expect(isRepeatableTool({ readOnlyHint: false, idempotentHint: false, destructiveHint: false })).toBe(false);
    expect(isRepeatableTool(undefined)).toBe(false);
  });
});

describe("requestDelivery", () => {
  it.each(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT"])(
    "says %s (only raised while connecting) was not sent, also down a cause chain",
    (code) => {
      expect(requestDelivery(coded(code))).toBe("not_sent");
      expect(requestDelivery(new TypeError("fetch failed", { cause: coded(code) }))).toBe("not_sent");
    },
  );

  it("treats timeouts, resets and closed connections as possibly sent", () => {
    for (const error of [
      coded("ECONNRESET"),
      coded("ETIMEDOUT"),
      new McpError(ErrorCode.RequestTimeout, "timed out"),
      new Error("socket hang up"),
    ]) {
      expect(requestDelivery(error)).toBe("maybe_sent");
    }
    expect(requestDelivery(markNotSent(coded("ECONNRESET")))).toBe("not_sent");
  });

  it("gets a refused connection from nodeFetch as not sent", async () => {
    const error = await nodeFetch(`http://127.0.0.1:${await closedPort()}/mcp`, {
      method: "POST",
      body: "{}",
      redirect: "manual",
    }).catch((e: unknown) => e);
    expect(requestDelivery(error)).toBe("not_sent");
  });

  it("sends a request whose kept-alive connection was reset before any answer again, on a fresh connection, whose reset counts", async () => {
    let requests = 0;
    const server = await httpServer((req, res) => {
      requests++;
      if (requests === 1) res.end("{}");
      else req.on("end", () => req.socket.destroy()).resume();
    });
    try {
      await (await nodeFetch(server.url, { method: "POST", body: "{}", redirect: "manual" })).text();
      const error = await nodeFetch(server.url, { method: "POST", body: "{}", redirect: "manual" }).catch(
        (e: unknown) => e,
      );
      // The reused connection's reset is the server having closed it while idle: nothing ran, so it went again.
      // The fresh connection was reset after the whole request was written: that one may have run.
      expect(requests).toBe(3);
      expect(requestDelivery(error)).toBe("maybe_sent");
    } finally {
      await server.close();
    }
  });

  it("gets a new connection reset after the whole request was written from nodeFetch as possibly sent", async () => {
    let received = "";
    const server = await httpServer((req) => {
      req.on("data", (chunk: Buffer) => void (received += chunk.toString()));
      req.on("end", () => req.socket.destroy());
    });
    try {
      const error = await nodeFetch(server.url, {
        method: "POST",
        body: '{"jsonrpc":"2.0"}',
        redirect: "manual",
      }).catch((e: unknown) => e);
      expect(received).toBe('{"jsonrpc":"2.0"}');
      expect(error).toBeInstanceOf(Error);
      expect(requestDelivery(error)).toBe("maybe_sent");
    } finally {
      await server.close();
    }
  });
});
