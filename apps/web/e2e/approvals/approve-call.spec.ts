import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { expectAccessible } from "../support/a11y";
import { createTokenViaApi } from "../support/api";
import { DocsUpstream, governancePanel, installDocs } from "../support/docs-upstream";
import { expect, shot, test } from "../support/fixtures";

/** A 2025-11-25 SDK client of the member's token; `url: true` declares URL-mode elicitation. */
async function memberClient(baseURL: string, token: string, { url }: { url: boolean }): Promise<Client> {
  const client = new Client(
    { name: "approvals-e2e", version: "1.0.0" },
    { capabilities: url ? { elicitation: { url: {} } } : {} },
  );
  if (url) client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "cancel" }));
  await client.connect(
    new StreamableHTTPClientTransport(new URL("/api/mcp", baseURL), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

type Outcome = { text?: string; code?: number; message?: string; data?: Record<string, unknown> };

async function callDelete(client: Client, text: string): Promise<Outcome> {
  try {
    const result = (await client.callTool({ name: "docs-delete", arguments: { text } })) as {
      content: Array<{ text: string }>;
    };
    return { text: result.content[0]?.text };
  } catch (err) {
    if (!(err instanceof McpError)) throw err;
    return { code: err.code, message: err.message, data: err.data as Record<string, unknown> };
  }
}

/** The approval page a held call points at (the URL elicitation's, or the -32032 error's `url`). */
function pageUrlOf(held: Outcome): string {
  const elicitation = (held.data?.elicitations as Array<{ url: string }> | undefined)?.[0];
  const url = elicitation?.url ?? (held.data?.url as string | undefined);
  if (!url) throw new Error(`no approval URL in ${JSON.stringify(held)}`);
  return new URL(url).pathname;
}

test("a member's call to a tool that needs approval is held with the approval page's URL, the admin approves it there with a comment, the retried call runs once and a replay is held again", async ({
  adminPage,
  memberPage,
  member,
  team,
  baseURL,
}) => {
  const upstream = await DocsUpstream.start();
  try {
    const installation = await installDocs(adminPage, memberPage, team, upstream);

    // Admin: docs' delete needs approval for each call.
    await adminPage.goto(`/t/${team.slug}/installations/${installation.id}`);
    await adminPage.getByRole("tab", { name: "Tools" }).click();
    const governance = governancePanel(adminPage);
    const approval = governance.row("delete").getByRole("checkbox", { name: "delete needs approval for each call" });
    await expect(approval).not.toBeChecked({ timeout: 30_000 });
    await approval.check();
    await expect(approval).toBeChecked();
    await expect(governance.panel.getByTestId("governance-audit")).toContainText("approval required");

    // Member: a client that supports URL elicitation is sent to the approval page (-32042) once the gateway reads
    // the setting (within seconds); a client without it reads -32032 with the page.
    const token = await createTokenViaApi(memberPage.request, team.id, "approvals client");
    const client = await memberClient(baseURL!, token, { url: true });
    const plain = await memberClient(baseURL!, token, { url: false });
    try {
      let held: Outcome = {};
      await expect
        .poll(
          async () => {
            held = await callDelete(client, "report-7");
            return held.code ?? held.text;
          },
          { timeout: 20_000 },
        )
        .toBe(-32042);
      const page = pageUrlOf(held);
      expect(page).toMatch(new RegExp(`^/t/${team.slug}/approvals/[^/]+$`));
      const other = await callDelete(plain, "report-8");
      expect(other.code).toBe(-32032);
      expect(pageUrlOf(other)).toMatch(new RegExp(`^/t/${team.slug}/approvals/[^/]+$`));

      // The member sees their own request waiting.
      await memberPage.goto(page);
      await expect(memberPage.getByTestId("approval")).toHaveAttribute("data-state", "pending");
      await expect(memberPage.getByTestId("approval-outcome")).toContainText("Your call waits for an approver.");
      await expect(memberPage.getByRole("button", { name: "Approve" })).toHaveCount(0);

      // Admin: the badge, the list, then the page with the exact arguments; approve with a comment.
      await adminPage.goto(`/t/${team.slug}/approvals`);
      await expect(adminPage.getByTestId("approvals-waiting")).toHaveText(/2/);
      const waiting = adminPage.getByRole("table", { name: "Calls waiting for a decision" });
      await expect(waiting.getByRole("row")).toHaveCount(3);
      await expectAccessible(adminPage, "approvals list");
      await adminPage.goto(page);
      const view = adminPage.getByTestId("approval");
      await expect(view).toHaveAttribute("data-state", "pending");
      await expect(adminPage.getByTestId("approval-caller")).toContainText(member.email);
      await expect(adminPage.getByTestId("approval-arguments")).toContainText('"text": "report-7"');
      await expect(adminPage.getByTestId("approval-reason")).toContainText("needing approval");
      await expect(adminPage.getByTestId("approval-countdown")).toContainText(/in \d+/);
      await expectAccessible(adminPage, "approval page");
      await shot(adminPage, "approval-page");
      await adminPage.getByLabel(/Comment/).fill("Fine for the quarterly cleanup.");
      await adminPage.getByRole("button", { name: "Approve", exact: true }).click();
      const dialog = adminPage.getByRole("dialog");
      await expect(dialog).toContainText("The call runs once, with these arguments, if");
      await dialog.getByRole("button", { name: "Approve the call" }).click();
      await expect(view).toHaveAttribute("data-state", "approved");
      await expect(adminPage.getByTestId("approval-comment")).toHaveText("Fine for the quarterly cleanup.");

      // Member: the page says approved (live or at the next poll); the retried call runs, once.
      await expect(memberPage.getByTestId("approval")).toHaveAttribute("data-state", "approved", { timeout: 10_000 });
      expect(await callDelete(client, "report-7")).toEqual({ text: "delete: report-7" });
      const replay = await callDelete(client, "report-7");
      expect(replay.code).toBe(-32042);
      expect(pageUrlOf(replay)).not.toBe(page);
      await memberPage.reload();
      await expect(memberPage.getByTestId("approval")).toHaveAttribute("data-state", "used");

      // Admin: the used approval is in the history with who decided it.
      await adminPage.goto(`/t/${team.slug}/approvals`);
      const history = adminPage.getByRole("table", { name: "Decided and expired calls" });
      await expect(history.getByRole("row").nth(1)).toContainText("approved, used");
      await expectAccessible(adminPage, "approvals history");
    } finally {
      await client.close();
      await plain.close();
    }
  } finally {
    await upstream.stop();
  }
});
