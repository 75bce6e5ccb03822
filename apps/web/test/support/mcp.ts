import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { discover } from "@switchboard/core/discovery";
import { ConnectionPool } from "@switchboard/core/upstream";
import { getDb } from "@switchboard/db/client";
import { replaceCatalogue } from "@switchboard/db/queries/catalogue";
import { handleMcpRequest } from "~/server/mcp/handler";

export const APP = "http://localhost:3000";

/** A fetch that hands every request straight to the route handler, as Next would. */
export function routeFetch(scope: string | null = null): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    // A dependent signal per request, as core's upstream transport does (the SDK's signal is long-lived).
    const signal = init?.signal ? AbortSignal.any([init.signal]) : undefined;
    const req = input instanceof Request ? input : new Request(input, { ...init, signal });
    const headers = new Headers(req.headers);
    headers.set("host", new URL(APP).host);
    return handleMcpRequest(new Request(req, { headers }), scope);
  }) as typeof fetch;
}

export async function connectClient(token: string, scope: string | null = null) {
  const url = new URL(scope ? `/api/mcp/servers/${scope}` : "/api/mcp", APP);
  const transport = new StreamableHTTPClientTransport(url, {
    fetch: routeFetch(scope),
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "route-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

/** Stores what discovery finds on a real upstream as the instance's catalogue and marks it online, as the worker would. */
export async function discoverInto(instanceId: string, slug: string, url: string) {
  const pool = new ConnectionPool({ resolve: async () => ({ launch: { transport: "streamable_http", url, headers: {} } }) });
  try {
    const result = await discover(await pool.get("x"), { slug });
    await replaceCatalogue(getDb(), instanceId, result);
    await getDb().instance.update({ where: { id: instanceId }, data: { status: "online", statusMessage: null } });
  } finally {
    await pool.closeAll();
  }
}
