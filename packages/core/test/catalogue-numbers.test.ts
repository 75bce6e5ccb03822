import { describe, expect, it } from "vitest";
import type { InstallationGovernance } from "../src/governance";
import { catalogueNumbers, catalogueTotals, viewTools, type MemberInstance } from "../src/proxy";
import { countToolTokens } from "../src/tokens";
import { memberInstance } from "./fixtures/member-instance";

const governance = (tools: InstallationGovernance["tools"]): InstallationGovernance => ({
  newTools: "on",
  pinned: false,
  tools,
  disabledPrompts: [],
  disabledResourceTemplates: [],
});

const tool = (name: string) => ({
  name,
  description: `The ${name} tool`,
  inputSchema: { type: "object" as const, properties: { q: { type: "string" } } },
});

function instance(over: Partial<MemberInstance> = {}): MemberInstance {
  return memberInstance({
    tools: [tool("search"), tool("read"), tool("delete"), tool("export")],
    // The admin turned delete off and renamed search; the member hid export.
    governance: governance({
      delete: { enabled: false },
      search: { enabled: true, exposedName: "find_documents", exposedDescription: "Finds documents by text." },
    }),
    hiddenTools: ["export"],
    ...over,
  });
}

describe("catalogue numbers: one count per view", () => {
  it("the upstream view is the raw catalogue, costed as discovery costs it", () => {
    const tools = viewTools(instance(), "upstream");
    expect(tools.map((t) => t.name)).toEqual(["search", "read", "delete", "export"]);
    expect(catalogueNumbers(tools)).toEqual({
      toolCount: 4,
      tokens: instance().tools.reduce((n, t) => n + countToolTokens(t), 0),
    });
  });

  it("the installation view applies governance (off, renamed, new description) but not a member's hidden tools", () => {
    const tools = viewTools(instance(), "installation");
    expect(tools.map((t) => [t.name, t.listedName])).toEqual([
      ["search", "docs-find_documents"],
      ["read", "docs-read"],
      ["export", "docs-export"],
    ]);
    const renamed = tools.find((t) => t.name === "search")!;
    expect(renamed.description).toBe("Finds documents by text.");
    expect(renamed.tokens).toBe(
      countToolTokens({ ...tool("search"), name: "find_documents", description: "Finds documents by text." }),
    );
  });

  it("the member view also leaves out what the member hid, and toolsets narrow it further", () => {
    expect(viewTools(instance(), "member").map((t) => t.name)).toEqual(["search", "read"]);
    expect(viewTools(instance({ selectedTools: ["read"] }), "member").map((t) => t.name)).toEqual(["read"]);
    // The installation's view ignores both the member's choices and a toolset's selection.
    expect(viewTools(instance({ selectedTools: ["read"] }), "installation")).toHaveLength(3);
  });

  it("an untouched tool costs the same in every view", () => {
    const cost = (view: "upstream" | "installation" | "member") =>
      viewTools(instance(), view).find((t) => t.name === "read")!.tokens;
    expect(new Set([cost("upstream"), cost("installation"), cost("member")]).size).toBe(1);
    expect(cost("member")).toBe(countToolTokens(tool("read")));
  });

  it("totals count only instances whose tools are listed now, and per server numbers agree with the list", () => {
    const online = instance();
    const stopped = instance({ instanceId: "i2", installationId: "inst2", slug: "mail", status: "offline" });
    const { servers, total } = catalogueTotals([online, stopped], "member");
    const onlineNumbers = catalogueNumbers(viewTools(online, "member"));
    expect(servers).toEqual([
      { instanceId: "i1", numbers: onlineNumbers },
      { instanceId: "i2", numbers: catalogueNumbers(viewTools(stopped, "member")) },
    ]);
    expect(total).toEqual(onlineNumbers);
    expect(total.toolCount).toBe(2);
  });
});
