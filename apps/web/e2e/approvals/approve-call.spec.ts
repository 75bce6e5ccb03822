import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { expectAccessible } from "../support/a11y";
import { createTokenViaApi } from "../support/api";
import { governancePanel } from "../support/docs-upstream";
import { expect, shot, test } from "../support/fixtures";
import { mailedLink } from "../support/mail";

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
  admin,
  adminPage,
  memberPage,
  member,
  team,
  baseURL,
  docs: { installation },
}) => {
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

    // The approver (the team's admin: no approvers named) is mailed the page's link, never the arguments.
    const mailed = await mailedLink(admin.email, /Approval needed: delete on/);
    expect(new URL(mailed).pathname).toBe(page);

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

    // The client without URL elicitation: approved on its page, its retry runs.
    await adminPage.goto(pageUrlOf(other));
    await adminPage.getByRole("button", { name: "Approve", exact: true }).click();
    await adminPage.getByRole("dialog").getByRole("button", { name: "Approve the call" }).click();
    await expect(adminPage.getByTestId("approval")).toHaveAttribute("data-state", "approved");
    expect(await callDelete(plain, "report-8")).toEqual({ text: "delete: report-8" });

    // Admin: the used approval is in the history with who decided it.
    await adminPage.goto(`/t/${team.slug}/approvals`);
    const history = adminPage.getByRole("table", { name: "Decided and expired calls" });
    await expect(history.getByRole("row").nth(1)).toContainText("approved, used");
    await expectAccessible(adminPage, "approvals history");
  } finally {
    await client.close();
    await plain.close();
  }
});

const V2026 = "2026-07-28";

/** A raw 2026-07-28 tools/call (stateless: no session) from a client that declares URL-mode elicitation. */
async function call2026(baseURL: string, token: string, name: string, args: Record<string, unknown>) {
  const res = await fetch(new URL("/api/mcp", baseURL), {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": V2026,
      "mcp-method": "tools/call",
      "mcp-name": name,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name,
        arguments: args,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": V2026,
          "io.modelcontextprotocol/clientInfo": { name: "approvals-e2e-2026", version: "1.0.0" },
          "io.modelcontextprotocol/clientCapabilities": { elicitation: { url: {} } },
        },
      },
    }),
  });
  const text = await res.text();
  const body = (res.headers.get("content-type") ?? "").includes("text/event-stream")
    ? text
        .split("\n")
        .filter((l) => l.startsWith("data: "))
        .map((l) => JSON.parse(l.slice(6)) as { id?: unknown })
        .find((m) => m.id !== undefined)
    : JSON.parse(text);
  return body as {
    result?: {
      resultType?: string;
      content?: Array<{ text: string }>;
      inputRequests?: Record<string, { method: string; params: { mode: string; url: string } }>;
    };
    error?: { code: number; message: string };
  };
}

test("on 2026-07-28 a held call answers input_required with the approval page as a URL elicitation; approved in the console, the retry runs once", async ({
  adminPage,
  memberPage,
  team,
  baseURL,
  docs: { installation },
}) => {
  await adminPage.goto(`/t/${team.slug}/installations/${installation.id}`);
  await adminPage.getByRole("tab", { name: "Tools" }).click();
  const approval = governancePanel(adminPage)
    .row("delete")
    .getByRole("checkbox", { name: "delete needs approval for each call" });
  await approval.check();
  await expect(approval).toBeChecked();

  const token = await createTokenViaApi(memberPage.request, team.id, "approvals client 2026");
  let held: Awaited<ReturnType<typeof call2026>> = {};
  await expect
    .poll(
      async () => {
        held = await call2026(baseURL!, token, "docs-delete", { text: "q3" });
        return held.result?.resultType ?? held.result?.content?.[0]?.text;
      },
      { timeout: 20_000 },
    )
    .toBe("input_required");
  const asked = Object.values(held.result!.inputRequests!)[0]!;
  expect(asked.method).toBe("elicitation/create");
  expect(asked.params.mode).toBe("url");
  const page = new URL(asked.params.url).pathname;
  expect(page).toMatch(new RegExp(`^/t/${team.slug}/approvals/[^/]+$`));

  // Still waiting: the retry asks again, for the same request.
  const again = await call2026(baseURL!, token, "docs-delete", { text: "q3" });
  expect(new URL(Object.values(again.result!.inputRequests!)[0]!.params.url).pathname).toBe(page);

  await adminPage.goto(page);
  await expect(adminPage.getByTestId("approval-arguments")).toContainText('"text": "q3"');
  await adminPage.getByRole("button", { name: "Approve", exact: true }).click();
  await adminPage.getByRole("dialog").getByRole("button", { name: "Approve the call" }).click();
  await expect(adminPage.getByTestId("approval")).toHaveAttribute("data-state", "approved");

  // Another argument is its own call: held. The approved one runs once; its replay is held again.
  expect((await call2026(baseURL!, token, "docs-delete", { text: "q4" })).result?.resultType).toBe("input_required");
  expect((await call2026(baseURL!, token, "docs-delete", { text: "q3" })).result?.content?.[0]?.text).toBe(
    "delete: q3",
  );
  expect((await call2026(baseURL!, token, "docs-delete", { text: "q3" })).result?.resultType).toBe("input_required");
});
