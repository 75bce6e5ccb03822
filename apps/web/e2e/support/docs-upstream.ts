import { expect, type Page } from "@playwright/test";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { TestUpstream } from "@switchboard/testing/upstream";
import { z } from "zod";
import { installViaApi } from "./api";

/**
 * A small document server over stateless Streamable HTTP (the upstream test server with its own tools) whose tool
 * descriptions the journey can change, as a server that rewrites its tools after they were approved would (each
 * request builds the server afresh, so the next discovery sees the change).
 */
export class DocsUpstream {
  readonly descriptions: Record<string, string> = {
    search: "Search the documents",
    read: "Read a document",
    delete: "Delete a document",
    export: "Export every document",
  };
  private upstream: TestUpstream | undefined;
  private constructor() {}

  static async start(): Promise<DocsUpstream> {
    const docs = new DocsUpstream();
    docs.upstream = await TestUpstream.start({ stateless: true, server: () => docs.create() });
    return docs;
  }

  private create(): McpServer {
    const mcp = new McpServer({ name: "docs", version: "1.0.0" });
    for (const [name, description] of Object.entries(this.descriptions)) {
      mcp.registerTool(name, { description, inputSchema: { text: z.string().optional() } }, async ({ text }) => ({
        content: [{ type: "text", text: `${name}: ${text ?? ""}` }],
      }));
    }
    return mcp;
  }

  get url(): string {
    return this.upstream!.url;
  }

  async stop(): Promise<void> {
    await this.upstream?.stop();
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
