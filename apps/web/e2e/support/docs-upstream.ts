import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, type Page } from "@playwright/test";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";
import { installViaApi } from "./api";

/**
 * A small document server over stateless Streamable HTTP whose tool descriptions the journey can change, as a
 * server that rewrites its tools after they were approved would (each request builds the server afresh, so the
 * next discovery sees the change).
 */
export class DocsUpstream {
  readonly descriptions: Record<string, string> = {
    search: "Search the documents",
    read: "Read a document",
    delete: "Delete a document",
    export: "Export every document",
  };
  private constructor(private readonly server: Server) {}

  static async start(): Promise<DocsUpstream> {
    let self: DocsUpstream | undefined;
    const server = createServer((req, res) => {
      const mcp = new McpServer({ name: "docs", version: "1.0.0" });
      for (const [name, description] of Object.entries(self!.descriptions)) {
        mcp.registerTool(name, { description, inputSchema: { text: z.string().optional() } }, async ({ text }) => ({
          content: [{ type: "text", text: `${name}: ${text ?? ""}` }],
        }));
      }
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on("close", () => void transport.close().catch(() => {}));
      void mcp.connect(transport).then(() => transport.handleRequest(req, res));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    self = new DocsUpstream(server);
    return self;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/mcp`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * Installs `upstream` as the team's `docs` server (Streamable HTTP) and waits until the member's instance is
 * online on their My servers page (`memberPage` is left there).
 */
export async function installDocs(
  adminPage: Page,
  memberPage: Page,
  team: { id: string; slug: string },
  upstream: DocsUpstream,
) {
  const installation = await installViaApi(adminPage.request, team.id, {
    slug: "docs",
    name: "Docs",
    transport: "streamable_http",
    url: upstream.url,
  });
  await memberPage.goto(`/t/${team.slug}/my-servers`);
  await expect(memberPage.getByTestId("my-server-docs").locator("[data-status]").first()).toHaveAttribute(
    "data-status",
    "online",
    { timeout: 30_000 },
  );
  return installation;
}

/** The admin's tool governance panel on an installation's (open) Tools tab: a tool's row, off, renamed. */
export function governancePanel(page: Page) {
  const panel = page.getByTestId("tool-governance");
  const row = (tool: string) => panel.locator(`[data-testid="governed-tool"][data-tool="${tool}"]`);
  return {
    panel,
    row,
    async turnOff(tool: string) {
      await expect(row(tool)).toContainText("on", { timeout: 30_000 });
      await row(tool)
        .getByRole("checkbox", { name: `Expose ${tool}` })
        .uncheck();
      await expect(row(tool)).toContainText("off");
    },
    async rename(tool: string, name: string) {
      await row(tool).getByRole("button", { name: "Rename" }).click();
      const form = panel.getByRole("form", { name: `Rename ${tool}` });
      await form.getByLabel("Exposed name").fill(name);
      await form.getByRole("button", { name: "Save name" }).click();
      await expect(row(tool)).toContainText(`docs-${name}`);
    },
  };
}
