import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/** An SDK MCP client on the hosted route, authenticated with a member's personal access token. */
export async function connectMcpClient(baseURL: string, token: string, path = "/api/mcp"): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(path, baseURL), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "switchboard-e2e", version: "1.0.0" });
  await client.connect(transport);
  return client;
}
