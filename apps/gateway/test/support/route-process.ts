/**
 * The MCP route alone in a process of its own (`tsx test/support/route-process.ts`, ROUTE_PORT set), on the
 * test run's database and Redis prefix: another web process, for tests of what crosses processes.
 */
import { createServer } from "node:http";
import { handleMcpHttp, matchMcpPath } from "../../src/mcp/http";

const port = Number(process.env.ROUTE_PORT);
createServer((req, res) => {
  const mcp = matchMcpPath(req.url);
  if (mcp) return void handleMcpHttp(req, res, mcp.scope);
  res.writeHead(404).end();
}).listen(port, "127.0.0.1", () => console.log(`route listening on ${port}`));
