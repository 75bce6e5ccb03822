import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { installDemoOnline } from "../support/api";
import { expect, test } from "../support/fixtures";
import { freePort } from "@switchboard/testing/net";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const mcpRemote = path.join(repoRoot, "node_modules/mcp-remote/dist/proxy.js");

// Once in CI (session 18) mcp-remote never connected after the browser step, and nothing said why; the cause is
// not found yet. One retry keeps CI meaningful meanwhile, and a failed attempt now prints what mcp-remote said.
test.describe.configure({ retries: 1 });

test("mcp-remote pointed at /api/mcp with no header signs the member in through the browser, then lists and calls their tools", async ({
  adminPage,
  memberPage,
  team,
  upstream,
  baseURL,
  consoleWatch,
}) => {
  // The browser step ends on mcp-remote's own callback page (127.0.0.1:<its port>), which serves no favicon: a 404,
  // or a refused connection when mcp-remote has closed its callback server before the browser asked.
  consoleWatch.expect(/(status of 404|net::ERR_CONNECTION_REFUSED) .*127\.0\.0\.1:\d+\/favicon\.ico\)$/);
  await installDemoOnline(adminPage.request, memberPage, team, upstream.url);

  // mcp-remote keeps its registration and tokens here; a fresh directory is a client that never signed in.
  const configDir = mkdtempSync(path.join(os.tmpdir(), "sb-mcp-remote-"));
  const callbackPort = await freePort();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [mcpRemote, `${baseURL}/api/mcp`, String(callbackPort), "--host", "127.0.0.1"],
    env: { ...(process.env as Record<string, string>), MCP_REMOTE_CONFIG_DIR: configDir, BROWSER: "none" },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "e2e-through-mcp-remote", version: "1.0.0" });
  const connected = client.connect(transport);
  try {
    // Its browser step: the URL it prints, opened in the member's signed-in browser.
    await expect
      .poll(() => /Please authorize this client by visiting:\s*(\S+)/.exec(stderr)?.[1] ?? null, { timeout: 30_000 })
      .not.toBeNull();
    const url = /Please authorize this client by visiting:\s*(\S+)/.exec(stderr)![1]!;
    await memberPage.goto(url);
    await expect(memberPage.getByTestId("oauth-consent")).toBeVisible();
    await memberPage.getByLabel(/^Router/).check();
    await memberPage.getByRole("button", { name: "Allow" }).click();
    // mcp-remote's own callback page answers once it has the code.
    await expect(memberPage).toHaveURL(new RegExp(`127\\.0\\.0\\.1:${callbackPort}/`), { timeout: 15_000 });
    // Once it has the code it exchanges it and connects; if it does not, what it said is the failure's reason.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      connected,
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`mcp-remote did not connect after the sign-in; it said:\n${stderr.slice(-4000)}`)),
          30_000,
        );
      }),
    ]).finally(() => clearTimeout(timer));

    // Router mode, as chosen on the consent page: the router's tools, through which the member's tools are called.
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["search_tools", "call_tool"]));
    expect(tools.map((t) => t.name)).not.toContain("demo-echo");
    const result = await client.callTool({
      name: "call_tool",
      arguments: { name: "demo-echo", arguments: { message: "through mcp-remote" } },
    });
    expect(JSON.stringify(result.content)).toContain("through mcp-remote");
  } finally {
    await client.close().catch(() => undefined);
    rmSync(configDir, { recursive: true, force: true });
  }
  await memberPage.goto(`/t/${team.slug}/connect`);
  await expect(memberPage.getByTestId("signed-in-client-row")).toContainText("router");
});
