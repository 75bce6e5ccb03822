import { expectAccessible } from "../support/a11y";
import { createTokenViaApi } from "../support/api";
import { expect, shot, test } from "../support/fixtures";
import { connectMcpClient } from "../support/mcp-client";

const POLICIES = `@id("all")
permit(principal, action, resource);

@id("members-no-search-for-secrets")
@reason("Searching for secrets is not allowed.")
forbid(principal in Switchboard::Role::"member", action == Switchboard::Action::"CallTool", resource == Switchboard::Tool::"docs/search")
when { context.arguments.hasTag("text") && context.arguments.getTag("text") like "*secret*" };
`;

test("an admin sees the defaults, is told the line of a mistake, saves a policy, asks what would happen to a member's call, and the member's client is refused with the policy's reason", async ({
  adminPage,
  memberPage,
  member,
  team,
  baseURL,
  docs: { installation },
}) => {
  await adminPage.goto(`/t/${team.slug}`);
  await adminPage.getByRole("link", { name: "Policies" }).click();
  await expect(adminPage).toHaveURL(new RegExp(`/t/${team.slug}/policies$`));
  const editorSection = adminPage.getByRole("region", { name: "Policy text" });
  await expect(editorSection.getByRole("status")).toContainText("The team uses the default policies");
  const editor = editorSection.getByLabel("Policies (Cedar)");
  await expect(editor).toHaveValue(/@id\("default-permit"\)/);

  // A mistake is named by its line, and saving waits until there is none.
  await editor.fill(
    `permit(principal, action, resource);\nforbid(principal, action, resource) when { resource.nam == "x" };\n`,
  );
  await expect(editorSection.getByRole("list", { name: "Problems" })).toContainText("Line 2:");
  await expect(editorSection.getByRole("button", { name: "Save policies" })).toBeDisabled();

  await editor.fill(POLICIES);
  await expect(editorSection.getByText("No problems found.")).toBeVisible();
  await expectAccessible(adminPage, "the policy editor");
  await editorSection.getByRole("button", { name: "Save policies" }).click();
  const confirm = adminPage.getByRole("dialog", { name: "Save these policies?" });
  await confirm.getByRole("button", { name: "Save" }).click();
  await expect(editorSection.getByRole("status")).toContainText("Version 1, saved by");
  await expect(adminPage.getByRole("table", { name: "Policy versions" })).toContainText("1");

  // What would happen: the member searching for a secret is refused by that policy.
  const panel = adminPage.getByRole("region", { name: "What would happen" });
  await panel
    .getByRole("combobox", { name: "Member" })
    .selectOption({ label: `${member.name} <${member.email}> · member` });
  await panel.getByRole("combobox", { name: "Server" }).selectOption({ label: "Docs (docs)" });
  await panel.getByRole("combobox", { name: "Tool" }).selectOption("search");
  await panel.getByLabel("Arguments (JSON)").fill('{"text": "the secret plan"}');
  await panel.getByRole("button", { name: "See the decision" }).click();
  const decision = panel.getByRole("status");
  await expect(decision).toContainText("Refused");
  await expect(decision).toContainText("Searching for secrets is not allowed.");
  await expect(decision).toContainText("members-no-search-for-secrets");
  // Another argument is allowed.
  await panel.getByLabel("Arguments (JSON)").fill('{"text": "quarterly report"}');
  await panel.getByRole("button", { name: "See the decision" }).click();
  await expect(decision).toContainText("Allowed");
  await expectAccessible(adminPage, "the what-would-happen panel");
  await shot(adminPage, "policies");

  // The member's client hears the same reason from the gateway (within the 5 s the gateway keeps policies).
  const token = await createTokenViaApi(memberPage.request, team.id, "policy client");
  const client = await connectMcpClient(baseURL!, token);
  try {
    await expect
      .poll(
        async () => {
          try {
            await client.callTool({ name: "docs-search", arguments: { text: "the secret plan" } });
            return "passed";
          } catch (err) {
            return String((err as Error).message);
          }
        },
        { timeout: 20_000 },
      )
      .toMatch(/^(MCP error -32031: )?Searching for secrets is not allowed\.$/);
  } finally {
    await client.close();
  }
  expect(installation.id).toBeTruthy();
});
