/**
 * Runs the OAuth-protected MCP test server (core's fixture: SDK server auth, DCR, PKCE, refresh, revocation) as
 * its own process for the browser journeys, with a control port the spec drives: token lifetime, revoke all,
 * a client registered by hand (what an admin does at a provider without dynamic registration).
 * Prints one JSON line with the URLs when ready.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { startOAuthMcpServer } from "@switchboard/core/testing/oauth-mcp-server";

const server = await startOAuthMcpServer({ accessTokenTtlMs: 3_600_000 });
async function body(req: IncomingMessage): Promise<string> {
  let data = "";
  for await (const chunk of req) data += chunk;
  return data;
}

const control = createServer(async (req, res) => {
  const url = new URL(req.url ?? "/", "http://control");
  if (req.method === "POST" && url.pathname === "/pre-register") {
    const { redirectUris, secret } = JSON.parse(await body(req)) as { redirectUris: string[]; secret?: string };
    const client = server.authServer.preRegister({ redirectUris, secret });
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ clientId: client.client_id, clientSecret: client.client_secret }));
    return;
  }
  if (req.method === "POST" && url.pathname === "/ttl") {
    server.authServer.accessTokenTtlMs = Number(url.searchParams.get("ms"));
  } else if (req.method === "POST" && url.pathname === "/revoke-grant") {
    server.authServer.revokeGrant(Number(url.searchParams.get("n")));
  } else if (req.method === "POST" && url.pathname === "/revoke-all") {
    server.authServer.revokeAll();
  } else if (req.method === "GET" && url.pathname === "/stats") {
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ ...server.authServer.stats, accepted: server.acceptedTokens.length }));
    return;
  } else {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(204).end();
});
control.listen(0, "127.0.0.1", () => {
  const { port } = control.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ mcpUrl: server.mcpUrl, controlUrl: `http://127.0.0.1:${port}` })}\n`);
});
const stop = async () => {
  control.close();
  await server.close();
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
