import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { expect } from "@playwright/test";
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

/**
 * A client of `token`'s member once the tool `expected` (e.g. `demo-echo`) is in their list: their instance is
 * online and its tools are discovered.
 */
export async function onlineMcpClient(baseURL: string, token: string, expected: string): Promise<Client> {
  let client: Client | undefined;
  await expect
    .poll(
      async () => {
        client ??= await connectMcpClient(baseURL, token);
        return (await client.listTools()).tools.map((t) => t.name);
      },
      { timeout: 30_000 },
    )
    .toContain(expected);
  return client!;
}
