/**
 * The gateway without the console, in a process of its own (`tsx test/support/route-process.ts`, ROUTE_PORT
 * set), on the test run's database and Redis prefix: the public server `server.ts` runs (health endpoints, the MCP
 * route, the graceful shutdown on SIGTERM) with 404 where server.ts forwards to Next. Another gateway process, for
 * tests of what crosses processes and of shutting down (and the chaos drills and the metrics bench).
 */
import { logger } from "@switchboard/runtime/logger";
import { handleMainPortMetrics } from "../../src/metrics";
import { createPublicServer, installGracefulShutdown } from "../../src/public-server";

const port = Number(process.env.ROUTE_PORT);
// With METRICS_TOKEN set, /metrics behind it, as on the gateway's public port (the metrics bench scrapes it).
const publicServer = createPublicServer({
  forward: (req, res) => {
    if (handleMainPortMetrics(req, res)) return;
    res.writeHead(404).end();
  },
});
publicServer.server.listen(port, "127.0.0.1", () => console.log(`route listening on ${port}`));
installGracefulShutdown({ publicServer, logger });
