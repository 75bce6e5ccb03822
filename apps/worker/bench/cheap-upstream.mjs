// Cheap local MCP upstreams for the worker benchmark, in their own process so the worker's figures (CPU, memory)
// are the worker's. Plain node:http answering Streamable HTTP JSON-RPC statelessly with JSON bodies: initialize,
// ping, tools/list; notifications get 202, GET (the optional SSE stream) 405.
//   node bench/cheap-upstream.mjs <count>   -> prints {"ports":[...]} on one line, serves until killed
import { createServer } from "node:http";

const count = Number(process.argv[2] ?? "4");
const TOOLS = [{ name: "echo", description: "Echoes", inputSchema: { type: "object", properties: {} } }];

function answer(message) {
  switch (message.method) {
    case "initialize":
      return {
        protocolVersion: message.params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "cheap-upstream", version: "1.0.0" },
      };
    case "ping":
      return {};
    case "tools/list":
      return { tools: TOOLS };
    default:
      return undefined;
  }
}

function handle(req, res) {
  if (req.method !== "POST") {
    res.writeHead(req.method === "DELETE" ? 200 : 405).end();
    return;
  }
  let body = "";
  req.setEncoding("utf8");
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    let message;
    try {
      message = JSON.parse(body);
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (message.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    const result = answer(message);
    const reply =
      result === undefined
        ? { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } }
        : { jsonrpc: "2.0", id: message.id, result };
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(reply));
  });
}

const ports = await Promise.all(
  Array.from(
    { length: count },
    () =>
      new Promise((resolve, reject) => {
        const server = createServer(handle);
        server.keepAliveTimeout = 60_000;
        server.once("error", reject);
        server.listen(0, "127.0.0.1", () => resolve(server.address().port));
      }),
  ),
);
process.stdout.write(`${JSON.stringify({ ports })}\n`);
// Gone with the benchmark: it holds our stdin.
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
