/**
 * The gateway's forwarding to the Next child (`src/console/forward.ts`), over real sockets: a backend
 * `node:http` server stands in for Next, a front server forwards to it exactly as `server.ts` does, and real
 * clients (fetch, `node:http`, raw `net` sockets) talk to the front.
 */
import { createHash, randomBytes } from "node:crypto";
import http, { type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import net, { type AddressInfo, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CONSOLE_MAX_BODY_BYTES, forwardRequest, forwardUpgrade } from "../src/console/forward";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** What the backend saw of one request: its head and its whole body. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: Buffer;
}

let backend: Server;
let front: Server;
let backendPort: number;
let frontPort: number;
let frontHost: string;
let onRequest: Handler;
let onUpgrade: UpgradeHandler;
/** Sockets taken over by an upgrade are no longer the servers' to close: every test's are destroyed here. */
const rawSockets = new Set<Duplex>();

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

function readBody(stream: NodeJS.ReadableStream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () => resolve(Buffer.concat(chunks)));
    stream.on("error", reject);
  });
}

/** A backend handler that records the request and answers 200 with a small JSON summary of its body. */
function recording(): { seen: Promise<Seen>; handler: Handler } {
  let resolve!: (seen: Seen) => void;
  const seen = new Promise<Seen>((r) => (resolve = r));
  const handler: Handler = (req, res) => {
    void readBody(req).then((body) => {
      resolve({ method: req.method!, url: req.url!, headers: req.headers, rawHeaders: req.rawHeaders, body });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ length: body.length, sha256: sha256(body) }));
    });
  };
  return { seen, handler };
}

function sha256(data: Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

/** One request through `node:http` (which, unlike fetch, may send hop-by-hop headers), answer read whole. */
function request(
  options: http.RequestOptions & { body?: Buffer | Buffer[] },
): Promise<{ res: IncomingMessage; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const { body, ...rest } = options;
    const req = http.request({ host: "127.0.0.1", port: frontPort, ...rest }, (res) => {
      readBody(res).then((data) => resolve({ res, body: data }), reject);
    });
    req.on("error", reject);
    if (Array.isArray(body)) for (const chunk of body) req.write(chunk);
    else if (body) req.write(body);
    req.end();
  });
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise,
    new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms)),
    ),
  ]).finally(() => clearTimeout(timer));
}

/** Reads a web stream until the text so far contains `needle`; returns the text. */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, needle: string, sofar = ""): Promise<string> {
  const decoder = new TextDecoder();
  let text = sofar;
  while (!text.includes(needle)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`stream ended before ${JSON.stringify(needle)}; got ${JSON.stringify(text)}`);
    text += decoder.decode(value, { stream: true });
  }
  return text;
}

beforeEach(async () => {
  onRequest = (_req, res) => {
    res.writeHead(500);
    res.end("no handler set");
  };
  onUpgrade = (_req, socket) => socket.destroy();
  backend = http.createServer((req, res) => onRequest(req, res));
  backend.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    rawSockets.add(socket);
    onUpgrade(req, socket, head);
  });
  backendPort = await listen(backend);
  front = http.createServer((req, res) => forwardRequest({ port: backendPort }, req, res));
  front.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    rawSockets.add(socket);
    forwardUpgrade({ port: backendPort }, req, socket, head);
  });
  frontPort = await listen(front);
  frontHost = `127.0.0.1:${frontPort}`;
});

afterEach(async () => {
  for (const socket of rawSockets) socket.destroy();
  rawSockets.clear();
  await Promise.all([close(front), close(backend)]);
});

describe("forwardRequest: the request reaches the backend intact", () => {
  it("GET: method, path and query, Host of the front, x-forwarded-* added", async () => {
    const { seen, handler } = recording();
    onRequest = handler;
    const res = await fetch(`http://${frontHost}/console/teams?tab=members&q=a%20b`, {
      headers: { "x-custom": "kept" },
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();

    const req = await seen;
    expect(req.method).toBe("GET");
    expect(req.url).toBe("/console/teams?tab=members&q=a%20b");
    expect(req.headers.host).toBe(frontHost);
    expect(req.headers["x-custom"]).toBe("kept");
    expect(req.headers["x-forwarded-for"]).toBe("127.0.0.1");
    expect(req.headers["x-forwarded-proto"]).toBe("http");
    expect(req.headers["x-forwarded-host"]).toBe(frontHost);
    expect(req.body.length).toBe(0);
  });

  it("POST with a small body", async () => {
    const { seen, handler } = recording();
    onRequest = handler;
    const payload = JSON.stringify({ name: "Acme", members: ["alice", "bob"] });
    const res = await fetch(`http://${frontHost}/api/trpc/team.create?batch=1`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: payload,
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();

    const req = await seen;
    expect(req.method).toBe("POST");
    expect(req.url).toBe("/api/trpc/team.create?batch=1");
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.headers["content-length"]).toBe(String(Buffer.byteLength(payload)));
    expect(req.body.toString()).toBe(payload);
  });

  it("POST with a body of exactly the cap (1 MiB): every byte arrives, in order", async () => {
    const { seen, handler } = recording();
    onRequest = handler;
    const payload = randomBytes(CONSOLE_MAX_BODY_BYTES);
    const res = await fetch(`http://${frontHost}/upload`, {
      method: "POST",
      headers: { "content-type": "application/octet-stream" },
      body: payload,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ length: payload.length, sha256: sha256(payload) });

    const req = await seen;
    expect(req.headers["content-length"]).toBe(String(payload.length));
    expect(req.body.equals(payload)).toBe(true);
  });

  it("POST with a chunked body and no content-length", async () => {
    const { seen, handler } = recording();
    onRequest = handler;
    const chunks = [Buffer.from("first,"), randomBytes(70_000), Buffer.from(",last")];
    const { res, body } = await request({ method: "PUT", path: "/chunked?x=1", body: chunks });
    expect(res.statusCode).toBe(200);
    const whole = Buffer.concat(chunks);
    expect(JSON.parse(body.toString())).toEqual({ length: whole.length, sha256: sha256(whole) });

    const req = await seen;
    expect(req.method).toBe("PUT");
    expect(req.url).toBe("/chunked?x=1");
    expect(req.headers["transfer-encoding"]).toBe("chunked");
    expect(req.headers["content-length"]).toBeUndefined();
    expect(req.body.equals(whole)).toBe(true);
  });

  it("keeps a client's x-forwarded-proto and x-forwarded-host, appends to its x-forwarded-for", async () => {
    const { seen, handler } = recording();
    onRequest = handler;
    const res = await fetch(`http://${frontHost}/`, {
      headers: {
        "x-forwarded-proto": "https",
        "x-forwarded-host": "switchboard.example",
        "x-forwarded-for": "203.0.113.7",
      },
    });
    await res.arrayBuffer();

    const req = await seen;
    expect(req.headers["x-forwarded-proto"]).toBe("https");
    expect(req.headers["x-forwarded-host"]).toBe("switchboard.example");
    expect(req.headers["x-forwarded-for"]).toBe("203.0.113.7, 127.0.0.1");
    expect(req.headers.host).toBe(frontHost);
  });

  it("does not forward hop-by-hop request headers", async () => {
    const { seen, handler } = recording();
    onRequest = handler;
    const { res } = await request({
      path: "/hop",
      agent: false,
      headers: {
        connection: "x-custom",
        "keep-alive": "timeout=99",
        te: "trailers",
        "proxy-connection": "keep-alive",
        // Node's client allows Trailer only on a chunked body: the body below is written before end().
        trailer: "x-checksum",
        "x-end-to-end": "yes",
      },
      method: "POST",
      body: [Buffer.from("chunked body")],
    });
    expect(res.statusCode).toBe(200);

    const req = await seen;
    expect(req.headers["x-end-to-end"]).toBe("yes");
    // The forwarder's own connection to the backend sets its own Connection header; the client's is gone.
    expect(req.headers.connection).not.toContain("x-custom");
    expect(req.headers["keep-alive"]).toBeUndefined();
    expect(req.headers.te).toBeUndefined();
    expect(req.headers["proxy-connection"]).toBeUndefined();
    expect(req.headers.trailer).toBeUndefined();
    expect(req.body.toString()).toBe("chunked body");
    expect(req.rawHeaders.join("\n")).not.toContain("timeout=99");
  });
});

describe("forwardRequest: framing and Connection-named headers", () => {
  it("drops the headers a request's Connection header names", async () => {
    const { seen, handler } = recording();
    onRequest = handler;
    const { res } = await request({
      path: "/named",
      agent: false,
      headers: { connection: "close, x-secret", "x-secret": "hop-only", "x-kept": "yes" },
    });
    expect(res.statusCode).toBe(200);
    const req = await seen;
    expect(req.headers["x-secret"]).toBeUndefined();
    expect(req.headers["x-kept"]).toBe("yes");
  });

  it("answers an HTTP/1.0 client without chunked framing", async () => {
    onRequest = (_req, res) => {
      res.write("hello ");
      res.end("world");
    };
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(frontPort, "127.0.0.1", () =>
        socket.write(`GET / HTTP/1.0\r\nHost: ${frontHost}\r\n\r\n`),
      );
      rawSockets.add(socket);
      let text = "";
      socket.on("data", (d) => (text += d));
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
    });
    const [head, body] = raw.split("\r\n\r\n");
    expect(head).toMatch(/^HTTP\/1\.1 200/);
    expect(head!.toLowerCase()).not.toContain("transfer-encoding");
    expect(body).toBe("hello world");
  });
});

describe("forwardRequest: request bodies are capped", () => {
  /** A backend that counts what reaches it, for requests that must never reach it whole. */
  function counting() {
    const state = { requests: 0, bytes: 0, aborted: 0 };
    onRequest = (req, res) => {
      state.requests++;
      req.on("data", (chunk: Buffer) => (state.bytes += chunk.length));
      req.on("aborted", () => state.aborted++);
      req.on("end", () => res.end(JSON.stringify({ length: state.bytes })));
    };
    return state;
  }

  it("answers 413 for a 50 MB tRPC body with a content-length, without forwarding a byte", async () => {
    const backendSaw = counting();
    const payload = Buffer.alloc(50 * 1024 * 1024, 0x61);
    const res = await fetch(`http://${frontHost}/api/trpc/catalogue.create`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: payload,
    });
    expect(res.status).toBe(413);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await res.text()).toMatch(/larger than Switchboard's console accepts \(1 MiB\)/);
    expect(backendSaw).toEqual({ requests: 0, bytes: 0, aborted: 0 });
  });

  it("answers 413 for an auth body one byte over the cap", async () => {
    const backendSaw = counting();
    const res = await fetch(`http://${frontHost}/api/auth/sign-up/email`, {
      method: "POST",
      body: Buffer.alloc(CONSOLE_MAX_BODY_BYTES + 1, 0x62),
    });
    expect(res.status).toBe(413);
    await res.text();
    expect(backendSaw.requests).toBe(0);
  });

  it("stops a chunked body at the cap: 413, and the backend's request is aborted having seen at most the cap", async () => {
    const backendSaw = counting();
    const chunk = Buffer.alloc(64 * 1024, 0x63);
    const { res, body } = await new Promise<{ res: IncomingMessage; body: Buffer }>((resolve, reject) => {
      const req = http.request(
        { host: "127.0.0.1", port: frontPort, method: "POST", path: "/api/trpc/team.create" },
        (r) => {
          readBody(r).then((b) => resolve({ res: r, body: b }), reject);
        },
      );
      req.on("error", reject);
      // Chunked, no content-length: 2 MiB written as it goes; the answer comes before the client is done.
      let sent = 0;
      const more = () => {
        while (sent < 2 * CONSOLE_MAX_BODY_BYTES) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once("drain", more);
        }
        req.end();
      };
      more();
    });
    expect(res.statusCode).toBe(413);
    expect(body.toString()).toMatch(/larger than/);
    await expect.poll(() => backendSaw.aborted + (backendSaw.requests === 0 ? 1 : 0)).toBe(1);
    expect(backendSaw.bytes).toBeLessThanOrEqual(CONSOLE_MAX_BODY_BYTES);
  });

  it("keeps serving on a new connection after refusing a body", async () => {
    counting();
    const big = await fetch(`http://${frontHost}/api/trpc/x`, {
      method: "POST",
      body: Buffer.alloc(CONSOLE_MAX_BODY_BYTES + 10),
    });
    expect(big.status).toBe(413);
    await big.text();
    const { seen, handler } = recording();
    onRequest = handler;
    const ok = await fetch(`http://${frontHost}/api/trpc/y`, { method: "POST", body: "small" });
    expect(ok.status).toBe(200);
    expect((await seen).body.toString()).toBe("small");
  });
});

describe("forwardRequest: the response reaches the client intact", () => {
  it("status, status message, repeated set-cookie, custom headers and body", async () => {
    onRequest = (_req, res) => {
      res.writeHead(201, "Made It", [
        "Set-Cookie",
        "a=1; Path=/; HttpOnly",
        "Set-Cookie",
        "b=2; Path=/console; Secure",
        "X-Custom",
        "value",
        "Content-Type",
        "text/plain; charset=utf-8",
        "Connection",
        "keep-alive",
        "Keep-Alive",
        "timeout=5",
      ]);
      res.end("created!");
    };
    // agent: false asks the front for `Connection: close`: then the front sends no Keep-Alive of its own,
    // and any Keep-Alive the client sees could only have come from the backend.
    const { res, body } = await request({ path: "/things", method: "POST", agent: false });
    expect(res.statusCode).toBe(201);
    expect(res.statusMessage).toBe("Made It");
    expect(res.headers["set-cookie"]).toEqual(["a=1; Path=/; HttpOnly", "b=2; Path=/console; Secure"]);
    expect(res.headers["x-custom"]).toBe("value");
    expect(res.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(res.headers["keep-alive"]).toBeUndefined();
    expect(res.headers.connection).toBe("close");
    expect(body.toString()).toBe("created!");
  });

  it("fetch sees both set-cookie headers separately, and the status text", async () => {
    onRequest = (_req, res) => {
      res.setHeader("set-cookie", ["session=abc; HttpOnly", "theme=dark"]);
      res.statusMessage = "Fine Thanks";
      res.end("ok");
    };
    const res = await fetch(`http://${frontHost}/`);
    expect(res.status).toBe(200);
    expect(res.statusText).toBe("Fine Thanks");
    expect(res.headers.getSetCookie()).toEqual(["session=abc; HttpOnly", "theme=dark"]);
    expect(await res.text()).toBe("ok");
  });

  it("a ~2 MB response body, chunked by the backend", async () => {
    const payload = randomBytes(2 * 1024 * 1024 + 7);
    onRequest = (_req, res) => {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      for (let i = 0; i < payload.length; i += 100_000) res.write(payload.subarray(i, i + 100_000));
      res.end();
    };
    const res = await fetch(`http://${frontHost}/download`);
    expect(res.status).toBe(200);
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.length).toBe(payload.length);
    expect(body.equals(payload)).toBe(true);
  });

  it("204 and 304 without a body, then a normal answer on the same connection", async () => {
    onRequest = (req, res) => {
      if (req.url === "/204") {
        res.writeHead(204, { "x-kind": "no-content" });
        res.end();
      } else if (req.url === "/304") {
        res.writeHead(304, { etag: '"v1"', "cache-control": "no-cache" });
        res.end();
      } else {
        res.writeHead(200, { "content-type": "text/plain" });
        res.end(`after ${req.url}`);
      }
    };
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const sockets = new Set<Socket>();
      const track = (res: IncomingMessage) => sockets.add(res.socket as Socket);

      const noContent = await request({ path: "/204", agent });
      track(noContent.res);
      expect(noContent.res.statusCode).toBe(204);
      expect(noContent.res.headers["x-kind"]).toBe("no-content");
      expect(noContent.body.length).toBe(0);

      const notModified = await request({ path: "/304", agent, headers: { "if-none-match": '"v1"' } });
      track(notModified.res);
      expect(notModified.res.statusCode).toBe(304);
      expect(notModified.res.headers.etag).toBe('"v1"');
      expect(notModified.body.length).toBe(0);

      const after = await request({ path: "/next", agent });
      track(after.res);
      expect(after.res.statusCode).toBe(200);
      expect(after.body.toString()).toBe("after /next");
      // One keep-alive connection carried all three: no stray body bytes broke its framing.
      expect(sockets.size).toBe(1);
    } finally {
      agent.destroy();
    }

    const viaFetch = await fetch(`http://${frontHost}/304`);
    expect(viaFetch.status).toBe(304);
    expect(viaFetch.headers.get("etag")).toBe('"v1"');
    expect(await viaFetch.text()).toBe("");
  });

  it("HEAD: headers with the backend's content-length, no body", async () => {
    onRequest = (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain", "content-length": "11" });
      res.end();
    };
    const { res, body } = await request({ method: "HEAD", path: "/page" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-length"]).toBe("11");
    expect(body.length).toBe(0);
  });
});

describe("forwardRequest: server-sent events", () => {
  it("headers arrive before the first event, and each event as the backend writes it", async () => {
    let sendFirst!: () => void;
    let sendSecond!: () => void;
    const first = new Promise<void>((r) => (sendFirst = r));
    const second = new Promise<void>((r) => (sendSecond = r));
    let secondWritten = false;
    onRequest = (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.flushHeaders();
      void first
        .then(() => {
          res.write("event: update\ndata: one\n\n");
          return second;
        })
        .then(() => {
          secondWritten = true;
          res.write("data: two\n\n");
          res.end();
        });
    };

    // fetch resolves on the response head: the backend has flushed it but written no event yet.
    const res = await within(fetch(`http://${frontHost}/api/events`), 1_000, "the SSE response head");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const reader = res.body!.getReader();

    sendFirst();
    const text = await within(readUntil(reader, "data: one\n\n"), 1_000, "the first event");
    expect(secondWritten).toBe(false);
    expect(text).not.toContain("two");

    sendSecond();
    const all = await within(readUntil(reader, "data: two\n\n", text), 1_000, "the second event");
    expect(all).toBe("event: update\ndata: one\n\ndata: two\n\n");
    expect((await reader.read()).done).toBe(true);
  });

  it("the client going away mid-stream closes the backend's response", async () => {
    let backendClosed!: () => void;
    const closed = new Promise<void>((r) => (backendClosed = r));
    let backendRes: ServerResponse | undefined;
    onRequest = (_req, res) => {
      backendRes = res;
      res.on("close", () => backendClosed());
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: one\n\n");
      // ...and the second event never comes: the stream stays open until someone closes it.
    };
    const controller = new AbortController();
    const res = await fetch(`http://${frontHost}/api/events`, { signal: controller.signal });
    const reader = res.body!.getReader();
    await within(readUntil(reader, "data: one\n\n"), 1_000, "the first event");

    controller.abort();
    await within(closed, 500, "the backend response to close");
    expect(backendRes!.writableFinished).toBe(false);
  });

  it("the client going away before the backend answered closes the backend's request", async () => {
    let backendClosed!: () => void;
    const closed = new Promise<void>((r) => (backendClosed = r));
    let arrived!: () => void;
    const received = new Promise<void>((r) => (arrived = r));
    onRequest = (_req, res) => {
      res.on("close", () => backendClosed());
      arrived();
      // Never answers: a long render, a long poll.
    };
    const client = http.request({ host: "127.0.0.1", port: frontPort, path: "/slow" });
    client.on("error", () => undefined);
    client.end();
    await within(received, 1_000, "the request to reach the backend");

    client.destroy();
    await within(closed, 500, "the backend request to close");

    // The front is unharmed.
    onRequest = (_req, res) => res.end("still here");
    const res = await fetch(`http://${frontHost}/`);
    expect(await res.text()).toBe("still here");
  });
});

describe("forwardRequest: backend down", () => {
  it("answers 502 text/plain with retry-after, and keeps serving afterwards", async () => {
    // A port that was just listened on and closed: nothing answers there.
    const gone = http.createServer();
    const deadPort = await listen(gone);
    await close(gone);

    const downFront = http.createServer((req, res) => forwardRequest({ port: deadPort }, req, res));
    const downPort = await listen(downFront);
    try {
      for (const init of [{}, { method: "POST", body: "some upload" }]) {
        const res = await fetch(`http://127.0.0.1:${downPort}/console`, init);
        expect(res.status).toBe(502);
        expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
        expect(res.headers.get("retry-after")).toBeTruthy();
        expect(await res.text()).toMatch(/ECONNREFUSED/);
      }
    } finally {
      await close(downFront);
    }

    // The front of this test, whose backend is up, is unaffected.
    onRequest = (_req, res) => res.end("up");
    const ok = await fetch(`http://${frontHost}/`);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe("up");
  });

  it("the same front answers 502 while the backend is down and 200 once it is back", async () => {
    onRequest = (_req, res) => res.end("back");
    await close(backend);

    const down = await fetch(`http://${frontHost}/`);
    expect(down.status).toBe(502);
    expect(down.headers.get("retry-after")).toBeTruthy();
    await down.text();

    const next = await fetch(`http://${frontHost}/again`);
    expect(next.status).toBe(502);
    await next.text();

    // Back on the same port (as a restarted Next child would be).
    backend = http.createServer((req, res) => onRequest(req, res));
    await new Promise<void>((resolve) => backend.listen(backendPort, "127.0.0.1", () => resolve()));
    const up = await fetch(`http://${frontHost}/`);
    expect(up.status).toBe(200);
    expect(await up.text()).toBe("back");
  });
});

describe("forwardRequest: a kept-alive connection the backend closed", () => {
  /** A backend that drops, unanswered, a request for `path` arriving on a connection it has already served. */
  function droppingReused(path: string) {
    const served = new WeakSet<object>();
    const seen: string[] = [];
    onRequest = (req, res) => {
      const reused = served.has(req.socket);
      served.add(req.socket);
      seen.push(`${req.method} ${req.url}${reused ? " (reused)" : ""}`);
      if (reused && req.url === path) {
        req.socket.destroy();
        return;
      }
      void readBody(req).then(() => res.end(`ok ${req.url}`));
    };
    return seen;
  }

  it("sends a request without a body again on a fresh connection, so the client gets its answer", async () => {
    const seen = droppingReused("/_next/static/chunk.js");
    expect(await (await fetch(`http://${frontHost}/page`)).text()).toBe("ok /page");
    const res = await fetch(`http://${frontHost}/_next/static/chunk.js`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("ok /_next/static/chunk.js");
    expect(seen).toEqual(["GET /page", "GET /_next/static/chunk.js (reused)", "GET /_next/static/chunk.js"]);
  });

  it("does not send a request with a body twice: the client gets a 502", async () => {
    const seen = droppingReused("/api/trpc/team.create");
    expect(await (await fetch(`http://${frontHost}/page`)).text()).toBe("ok /page");
    const res = await fetch(`http://${frontHost}/api/trpc/team.create`, { method: "POST", body: "{}" });
    expect(res.status).toBe(502);
    await res.text();
    expect(seen).toEqual(["GET /page", "POST /api/trpc/team.create (reused)"]);
  });
});

describe("forwardRequest: idle connections to the backend", () => {
  it("are closed by us before the backend's keep-alive timeout, so a POST never meets that race", async () => {
    // Node's server announces `Keep-Alive: timeout=2` and closes an idle connection after 2 s; the forwarder must
    // close it first (after the hint minus a second), which the backend sees as the client's FIN before its own
    // timer fires.
    backend.keepAliveTimeout = 2_000;
    const closedBy = new Promise<"client" | "backend">((resolve) => {
      backend.once("connection", (socket: Socket) => {
        let ended = false;
        socket.on("end", () => (ended = true));
        socket.on("close", () => resolve(ended ? "client" : "backend"));
      });
    });
    onRequest = (_req, res) => res.end("ok");
    const res = await fetch(`http://${frontHost}/page`);
    expect(await res.text()).toBe("ok");
    expect(await within(closedBy, 10_000, "the idle connection to close")).toBe("client");
  });
});

describe("forwardUpgrade", () => {
  /** A raw client: connects to the front, sends `first` in one write, collects everything it is sent. */
  function rawClient(
    first: string,
  ): Promise<{ socket: Socket; received: () => string; waitFor: (s: string) => Promise<string> }> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(frontPort, "127.0.0.1", () => {
        socket.write(first);
        resolve({
          socket,
          received: () => text,
          waitFor: (needle) =>
            within(
              new Promise<string>((done) => {
                const check = () => {
                  if (text.includes(needle)) {
                    socket.off("data", check);
                    done(text);
                  }
                };
                socket.on("data", check);
                check();
              }),
              1_000,
              JSON.stringify(needle),
            ),
        });
      });
      rawSockets.add(socket);
      let text = "";
      socket.setEncoding("utf8");
      socket.on("data", (chunk: string) => (text += chunk));
      socket.on("error", reject);
    });
  }

  function echoBackend(seen: { req?: IncomingMessage; head?: Buffer }) {
    onUpgrade = (req, socket, head) => {
      seen.req = req;
      seen.head = head;
      socket.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n");
      if (head.length > 0) socket.write(head);
      socket.pipe(socket);
    };
  }

  it("the 101 comes back and bytes are echoed both ways, including those sent with the request head", async () => {
    const seen: { req?: IncomingMessage; head?: Buffer } = {};
    echoBackend(seen);
    const head =
      `GET /_next/webpack-hmr?page=%2F HTTP/1.1\r\nHost: ${frontHost}\r\nUpgrade: echo\r\nConnection: Upgrade\r\n` +
      `X-Custom: one\r\n\r\n`;
    const client = await rawClient(`${head}early-bytes|`);

    const text = await client.waitFor("early-bytes|");
    expect(text.startsWith("HTTP/1.1 101 Switching Protocols\r\n")).toBe(true);
    expect(text).toContain("Upgrade: echo\r\n");
    expect(text).toContain("Connection: Upgrade\r\n");
    expect(text.slice(text.indexOf("\r\n\r\n") + 4)).toBe("early-bytes|");

    expect(seen.req!.method).toBe("GET");
    expect(seen.req!.url).toBe("/_next/webpack-hmr?page=%2F");
    expect(seen.req!.headers.host).toBe(frontHost);
    expect(seen.req!.headers.upgrade).toBe("echo");
    expect(seen.req!.headers["x-custom"]).toBe("one");

    client.socket.write("later");
    const after = await client.waitFor("early-bytes|later");
    expect(after.slice(after.indexOf("\r\n\r\n") + 4)).toBe("early-bytes|later");

    // Closing one end closes the other.
    let backendClosed!: () => void;
    const closed = new Promise<void>((r) => (backendClosed = r));
    const backendSocket = [...rawSockets].find((s) => s !== client.socket && (s as Socket).localPort === backendPort);
    expect(backendSocket).toBeDefined();
    backendSocket!.on("close", () => backendClosed());
    client.socket.destroy();
    await within(closed, 500, "the backend socket to close");
  });

  it("a large payload sent with the head, and the backend closing first closes the client", async () => {
    echoBackend({});
    const payload = "x".repeat(200_000);
    const head = `GET /ws HTTP/1.1\r\nHost: ${frontHost}\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n`;
    const client = await rawClient(head + payload + "|end");
    const text = await client.waitFor("|end");
    expect(text.slice(text.indexOf("\r\n\r\n") + 4)).toBe(payload + "|end");

    const clientClosed = new Promise<void>((r) => client.socket.once("close", () => r()));
    for (const socket of rawSockets)
      if (socket !== client.socket && (socket as Socket).localPort === backendPort) socket.destroy();
    await within(clientClosed, 500, "the client socket to close");
  });

  it("backend down: the client's socket is closed", async () => {
    await close(backend);
    const client = await rawClient(
      `GET /ws HTTP/1.1\r\nHost: ${frontHost}\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n`,
    );
    await within(new Promise<void>((r) => client.socket.once("close", () => r())), 500, "the client socket to close");
    expect(client.received()).toBe("");
  });
});
