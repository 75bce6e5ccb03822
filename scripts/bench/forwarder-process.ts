/**
 * The floor of a gateway in Node on this machine: a forwarder that does only what any MCP gateway must for a
 * call (read the client's POST whole, parse its JSON-RPC envelope, send it on over a kept-alive HTTP connection,
 * read the upstream's answer whole, parse it, write it back) and nothing else: no authentication, routing,
 * policies, guardrails, request log or MCP session of its own (the client's session id passes through). The proxy
 * bench runs it beside the route, so the route's CPU per call reads against what Node's HTTP alone costs here.
 *
 * Usage: node --import tsx forwarder-process.ts <upstream url>; prints its own URL on the first line.
 */
import { Agent, createServer, request, type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

const upstream = new URL(process.argv[2]!);
const agent = new Agent({ keepAlive: true });
/** The headers a Streamable HTTP exchange needs, each way. */
const FORWARDED = ["content-type", "accept", "mcp-session-id", "mcp-protocol-version", "last-event-id"];
const RETURNED = ["content-type", "mcp-session-id"];

function pick(headers: IncomingHttpHeaders, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = headers[name];
    if (typeof value === "string") out[name] = value;
  }
  return out;
}

async function readAll(message: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of message) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

const server = createServer(async (req, res) => {
  const body = req.method === "POST" ? JSON.stringify(JSON.parse(await readAll(req))) : undefined;
  const out = request(upstream, { method: req.method, agent, headers: pick(req.headers, FORWARDED) }, async (up) => {
    const headers = pick(up.headers, RETURNED);
    // A JSON answer is parsed as a gateway that reads results would; an event stream passes as it comes.
    if (headers["content-type"]?.startsWith("application/json")) {
      const text = JSON.stringify(JSON.parse(await readAll(up)));
      res.writeHead(up.statusCode ?? 502, headers).end(text);
    } else {
      res.writeHead(up.statusCode ?? 502, headers);
      up.pipe(res);
    }
  });
  out.on("error", () => res.headersSent || res.writeHead(502).end());
  out.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp\n`);
});
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
