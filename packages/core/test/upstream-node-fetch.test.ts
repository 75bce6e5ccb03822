import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import diagnostics from "node:diagnostics_channel";
import { getEventListeners } from "node:events";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { classifyError, requestDelivery } from "../src/policies";
import { WORKER_HANDOVER_MESSAGE, WORKER_NOT_ANSWERING_MESSAGE } from "../src/status";
import { WorkerHandoverError, WorkerNotAnsweringError } from "../src/stdio";
import { BRIDGE_HOLDER_HEADER } from "../src/contracts";
import { bridgeFetch, nodeFetch } from "../src/upstream";
import { isSignalSafe } from "../src/upstream/node-fetch";

let server: Server | undefined;
const connections = new Set<unknown>();

async function serve(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<string> {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => handler(req, res, body));
  });
  server.on("connection", (socket) => connections.add(socket));
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  connections.clear();
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

const manual = { redirect: "manual" } as const;

// A full collection on demand, to see what is still reachable (the flag must be set before the function exists).
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

describe("nodeFetch", () => {
  it("posts a body with the given headers, answers status, headers and JSON, and reuses the connection", async () => {
    const base = await serve((req, res, body) => {
      res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s-1" });
      res.end(
        JSON.stringify({
          method: req.method,
          auth: req.headers.authorization,
          type: req.headers["content-type"],
          body: JSON.parse(body),
        }),
      );
    });
    const headers = new Headers({ authorization: "Bearer abc", "content-type": "application/json" });
    const first = await nodeFetch(`${base}/mcp`, {
      ...manual,
      method: "POST",
      headers,
      body: JSON.stringify({ n: "ünï" }),
    });
    expect(first.status).toBe(200);
    expect(first.headers.get("mcp-session-id")).toBe("s-1");
    expect(await first.json()).toEqual({
      method: "POST",
      auth: "Bearer abc",
      type: "application/json",
      body: { n: "ünï" },
    });
    const second = await nodeFetch(new URL(`${base}/mcp`), {
      ...manual,
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{}",
    });
    expect((await second.json()).body).toEqual({});
    expect(connections.size).toBe(1);
  });

  it("answers a whole body as a fetch Response: read once, by any reader, as a stream, or cloned first", async () => {
    const text = '\uFEFF{"n":"ünï"}';
    const base = await serve((_req, res) => {
      res.writeHead(500, "Oops", { "content-type": "application/json; charset=utf-8" });
      res.end(text);
    });
    const get = () => nodeFetch(`${base}/mcp`, { ...manual, method: "POST", body: "{}" });

    const one = await get();
    expect(one).toBeInstanceOf(Response);
    expect([one.ok, one.status, one.statusText, one.bodyUsed]).toEqual([false, 500, "Oops", false]);
    const copy = one.clone();
    // As fetch's: the byte order mark is dropped when decoding, and a body is read once.
    expect(await one.json()).toEqual({ n: "ünï" });
    expect(one.bodyUsed).toBe(true);
    await expect(one.text()).rejects.toThrow(TypeError);
    expect(() => one.clone()).toThrow(TypeError);
    expect(await copy.text()).toBe('{"n":"ünï"}');
    expect(new TextDecoder().decode(await (await get()).arrayBuffer())).toBe('{"n":"ünï"}');
    const blob = await (await get()).blob();
    expect([blob.type, blob.size]).toEqual(["application/json; charset=utf-8", Buffer.byteLength(text)]);

    // The body as a stream, as an event stream's would be read; cancelling it unread leaves the body readable.
    const streamed = await get();
    const chunks: Uint8Array[] = [];
    for await (const chunk of streamed.body!) chunks.push(chunk);
    expect(Buffer.concat(chunks).toString()).toBe(text);
    expect(streamed.bodyUsed).toBe(true);
    const cancelled = await get();
    await cancelled.body!.cancel();
    expect(await (await get()).text()).toBe('{"n":"ünï"}');
  });

  it("sends a request again on a fresh connection when the server closed the kept-alive one it reused", async () => {
    // The server closes each connection when a second request arrives on it, as one whose idle timeout fired just
    // as the request went out would: the request reaches nothing that runs it.
    const ran: string[] = [];
    const served = new WeakMap<object, number>();
    server = createServer((req, res) => {
      const count = (served.get(req.socket) ?? 0) + 1;
      served.set(req.socket, count);
      if (count > 1) return void req.socket.destroy();
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        ran.push(body);
        res.writeHead(200, { "content-type": "application/json" }).end(body);
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const send = (n: number) => nodeFetch(`${base}/mcp`, { ...manual, method: "POST", body: JSON.stringify({ n }) });
    expect(await (await send(1)).json()).toEqual({ n: 1 });
    // The answer to an upstream's request, say: nobody above would send it again.
    const second = await send(2);
    expect(second.status).toBe(200);
    expect(await second.json()).toEqual({ n: 2 });
    expect(ran).toEqual(['{"n":1}', '{"n":2}']);
  });

  it("hands an event stream over as it arrives", async () => {
    let release!: () => void;
    const secondSent = new Promise<void>((resolve) => (release = resolve));
    const base = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("event: message\ndata: one\n\n");
      void secondSent.then(() => res.end("event: message\ndata: two\n\n"));
    });
    const response = await nodeFetch(base, { ...manual, method: "GET" });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    // The first event is readable while the server still holds the second back.
    expect((await reader.read()).value).toContain("data: one");
    release();
    let rest = "";
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += r.value;
    expect(rest).toContain("data: two");
  });

  it("answers 202 and 204 without a body", async () => {
    const base = await serve((req, res) => res.writeHead(req.url === "/a" ? 202 : 204).end());
    const accepted = await nodeFetch(`${base}/a`, { ...manual, method: "POST", body: "{}" });
    expect(accepted.status).toBe(202);
    expect(await accepted.text()).toBe("");
    const none = await nodeFetch(`${base}/b`, { ...manual, method: "DELETE" });
    expect(none.status).toBe(204);
    expect(none.body).toBeNull();
  });

  it("stops a request when its signal aborts", async () => {
    let arrived!: () => void;
    const inFlight = new Promise<void>((resolve) => (arrived = resolve));
    const base = await serve(() => arrived()); // never answers
    const controller = new AbortController();
    const pending = nodeFetch(base, { ...manual, method: "POST", body: "{}", signal: controller.signal });
    await inFlight; // aborted once the server holds the request, not after a guessed delay
    controller.abort();
    const error = await pending.catch((e: unknown) => e);
    expect((error as Error).name).toBe("AbortError");
  });

  it("keeps one abort listener on the long-lived signal the SDK passes to every request, however many are in flight", async () => {
    const held: ServerResponse[] = [];
    const base = await serve((_req, res) => void held.push(res));
    const controller = new AbortController();
    const warnings: Error[] = [];
    const onWarning = (w: Error) => void warnings.push(w);
    process.on("warning", onWarning);
    try {
      let answered = 0;
      const calls = Array.from({ length: 32 }, () =>
        nodeFetch(base, { ...manual, method: "POST", body: "{}", signal: controller.signal }).then(
          (r) => (answered++, r),
        ),
      );
      await expect.poll(() => held.length).toBe(32);
      expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
      for (const res of held.splice(0, 16)) res.writeHead(200, { "content-type": "application/json" }).end("{}");
      await expect.poll(() => answered).toBe(16);
      // Aborting cancels every request still in flight on the signal, and only those.
      controller.abort();
      const settled = await Promise.allSettled(calls);
      expect(settled.filter((r) => r.status === "fulfilled")).toHaveLength(16);
      expect(
        settled.filter((r) => r.status === "rejected").map((r) => ((r as PromiseRejectedResult).reason as Error).name),
      ).toEqual(Array(16).fill("AbortError"));
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning")).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("keeps no finished request alive through the long-lived signal's abort listener", async () => {
    const base = await serve((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
    // The request objects as node:http makes them, watched without being held.
    const made: WeakRef<object>[] = [];
    const onStart = ({ request }: { request: object }) => void made.push(new WeakRef(request));
    diagnostics.subscribe("http.client.request.start", onStart as never);
    const connection = new AbortController();
    try {
      for (let i = 0; i < 3; i++)
        await (await nodeFetch(`${base}/mcp`, { ...manual, signal: connection.signal })).text();
    } finally {
      diagnostics.unsubscribe("http.client.request.start", onStart as never);
    }
    expect(made).toHaveLength(3);
    // The signal lives on (a connection's does, as long as the connection), so the listener on it does too.
    await expect
      .poll(async () => {
        await new Promise((resolve) => setImmediate(resolve));
        gc();
        return made.filter((ref) => ref.deref() !== undefined).length;
      })
      .toBe(0);
    expect(connection.signal.aborted).toBe(false);
  });

  it("fails with the system error code an unreachable server gives, which classifies as offline", async () => {
    const base = await serve(() => {});
    const port = (server!.address() as AddressInfo).port;
    await new Promise((resolve) => server!.close(resolve));
    server = undefined;
    const error = await nodeFetch(`http://127.0.0.1:${port}/mcp`, { ...manual, method: "POST", body: "{}" }).catch(
      (e: unknown) => e,
    );
    expect((error as { code?: string }).code).toBe("ECONNREFUSED");
    expect(classifyError(error)).toMatchObject({ status: "offline", retryable: true, kind: "connection_refused" });
    expect(base).toContain(String(port));
  });

  it("returns a redirect as is when asked for manual redirects, and leaves following them to fetch otherwise", async () => {
    const base = await serve((req, res) => {
      if (req.url === "/old") res.writeHead(307, { location: "/new" }).end();
      else res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ at: req.url }));
    });
    const unfollowed = await nodeFetch(`${base}/old`, { ...manual, method: "GET" });
    expect(unfollowed.status).toBe(307);
    expect(unfollowed.headers.get("location")).toBe("/new");
    const followed = await nodeFetch(`${base}/old`, { method: "GET" });
    expect(await followed.json()).toEqual({ at: "/new" });
  });
});

describe("bridgeFetch", () => {
  const post = { ...manual, method: "POST", body: "{}" } as const;
  /** What the route makes of a bridge's failure: offline and retryable, in the sentence given. */
  const offlineRetryable = (kind: string, message: string) => ({ status: "offline", retryable: true, kind, message });

  it("turns a refused connection into the worker sentence, keeping code, cause, classification and delivery", async () => {
    await serve(() => {});
    const port = (server!.address() as AddressInfo).port;
    await new Promise((resolve) => server!.close(resolve));
    server = undefined;
    const error = await bridgeFetch(nodeFetch)(`http://127.0.0.1:${port}/mcp`, post).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkerNotAnsweringError);
    expect((error as Error).message).toBe(WORKER_NOT_ANSWERING_MESSAGE);
    expect((error as { code?: string }).code).toBe("ECONNREFUSED");
    expect(((error as Error).cause as { code?: string }).code).toBe("ECONNREFUSED");
    expect(classifyError(error)).toEqual(offlineRetryable("connection_refused", WORKER_NOT_ANSWERING_MESSAGE));
    expect(requestDelivery(error)).toBe("not_sent");
  });

  it("turns a connection closed before an answer into the sentence, still offline and retryable", async () => {
    const base = await serve((req) => req.socket.destroy());
    const error = await bridgeFetch(nodeFetch)(`${base}/mcp`, post).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkerNotAnsweringError);
    expect(classifyError(error)).toEqual(offlineRetryable("connection_reset", WORKER_NOT_ANSWERING_MESSAGE));
    // Written whole before the close: the bridge may have run it, as without the sentence.
    expect(requestDelivery(error)).toBe(requestDelivery((error as Error).cause));
  });

  it("follows a 421 to the bridge it names, once per request, and sends the connection's later requests there", async () => {
    // The bridge that holds the instance, on a server of its own.
    const seen: string[] = [];
    const holder = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(200, { "content-type": "application/json" }).end('{"at":"holder"}');
    });
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const holderUrl = `http://127.0.0.1:${(holder.address() as AddressInfo).port}`;
    let named: string | undefined = holderUrl;
    const misdirected: string[] = [];
    const base = await serve((req, res) => {
      misdirected.push(`${req.method} ${req.url}`);
      res.writeHead(421, { "content-type": "application/json", ...(named ? { [BRIDGE_HOLDER_HEADER]: named } : {}) });
      res.end('{"jsonrpc":"2.0","error":{"code":-32000,"message":"Hosted by another worker"},"id":null}');
    });
    try {
      const fetchImpl = bridgeFetch(nodeFetch);
      const first = await fetchImpl(`${base}/instances/i-1/mcp`, post);
      expect([first.status, await first.json()]).toEqual([200, { at: "holder" }]);
      const second = await fetchImpl(`${base}/instances/i-1/mcp`, { ...manual, method: "DELETE" });
      expect(second.status).toBe(200);
      expect(misdirected).toEqual(["POST /instances/i-1/mcp"]);
      expect(seen).toEqual(["POST /instances/i-1/mcp", "DELETE /instances/i-1/mcp"]);

      // A 421 that names no bridge, or one that is not http(s), is the answer.
      for (const header of [undefined, "file:///etc/passwd"]) {
        named = header;
        const answered = await bridgeFetch(nodeFetch)(`${base}/instances/i-1/mcp`, post);
        expect(answered.status).toBe(421);
      }
      expect(seen).toHaveLength(2);

      // A 421 naming the bridge it came from (a worker restarted where the lease points): one sentence, offline,
      // retryable, not sent; not the SDK's "Error POSTing to endpoint (HTTP 421)".
      named = base;
      const restarted = await bridgeFetch(nodeFetch)(`${base}/instances/i-1/mcp`, post).catch((e: unknown) => e);
      expect(restarted).toBeInstanceOf(WorkerHandoverError);
      expect(classifyError(restarted)).toEqual(offlineRetryable("worker_handover", WORKER_HANDOVER_MESSAGE));
      expect(requestDelivery(restarted)).toBe("not_sent");
    } finally {
      holder.closeAllConnections();
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it("leaves answers and other failures as they are, and stays signal-safe over nodeFetch", async () => {
    const base = await serve((_req, res) => res.writeHead(503).end("busy"));
    const answered = await bridgeFetch(nodeFetch)(`${base}/mcp`, post);
    expect(answered.status).toBe(503);
    const controller = new AbortController();
    controller.abort();
    const aborted = await bridgeFetch(nodeFetch)(`${base}/mcp`, { ...post, signal: controller.signal }).catch(
      (e: unknown) => e,
    );
    expect((aborted as Error).name).toBe("AbortError");
    expect(isSignalSafe(bridgeFetch(nodeFetch))).toBe(true);
  });
});
