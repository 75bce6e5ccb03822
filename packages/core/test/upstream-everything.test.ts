import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UpstreamConnection, createUpstreamTransport } from "../src/upstream";
import { everythingBin, startEverythingHttp, type EverythingHttp } from "./fixtures/everything";
import { fixtureFetch } from "./helpers/egress";

describe("UpstreamConnection against mcp-server-everything", () => {
  let http: EverythingHttp;
  const connections: UpstreamConnection[] = [];
  beforeAll(async () => {
    http = await startEverythingHttp();
  });
  afterAll(async () => {
    await Promise.all(connections.map((c) => c.close()));
    await http?.stop();
  });

  it("talks to it over stdio with the launch environment", async () => {
    const connection = new UpstreamConnection({
      instanceId: "everything-stdio",
      connector: () =>
        createUpstreamTransport({ transport: "stdio", command: everythingBin(), args: [], env: { SB_TIER: "member" } }),
    });
    connections.push(connection);
    const { tools } = await connection.listTools();
    expect(tools.map((t) => t.name)).toContain("echo");
    const result = await connection.callTool({ name: "echo", arguments: { message: "hi" } });
    expect(JSON.stringify(result.content)).toContain("hi");
    expect(connection.getServerCapabilities()?.tools).toBeDefined();
  });

  it("talks to it over Streamable HTTP", async () => {
    const connection = new UpstreamConnection({
      instanceId: "everything-http",
      connector: () =>
        createUpstreamTransport({ transport: "streamable_http", url: http.url, headers: {} }, { fetch: fixtureFetch }),
    });
    connections.push(connection);
    const result = await connection.callTool({ name: "echo", arguments: { message: "over http" } });
    expect(JSON.stringify(result.content)).toContain("over http");
    expect(connection.getProtocolVersion()).toBeTruthy();
  });
});
