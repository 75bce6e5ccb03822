import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { TestUpstream } from "@switchboard/testing/upstream";
import { z } from "zod";

/**
 * The upstream test server configured to echo back what it was sent in every way a server can: the request's
 * headers and URL in a tool result, in a JSON-RPC error, and, once `failing`, in the body of an HTTP 503 answered
 * to every request.
 */
export function startLeakyUpstream(): Promise<TestUpstream> {
  return TestUpstream.start({
    stateless: true,
    failureBody: (seen) => `upstream refused the request ${JSON.stringify(seen)}`,
    server: (request) => {
      const seen = JSON.stringify(request);
      const mcp = new McpServer({ name: "leaky-http", version: "1.0.0" });
      mcp.registerTool(
        "whoami",
        { description: "Echoes the request", inputSchema: { note: z.string().optional() } },
        async ({ note }) => ({
          content: [{ type: "text", text: `${seen} note=${note ?? ""}` }],
        }),
      );
      mcp.registerResource(
        "leak",
        new ResourceTemplate("leak://{name}", { list: undefined }),
        { description: "Fails with the request" },
        async () => {
          throw new Error(`access denied for ${seen}`);
        },
      );
      return mcp;
    },
  });
}
