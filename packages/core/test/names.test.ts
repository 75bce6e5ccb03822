import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";

import {
  MAX_CLIENT_TOOL_NAME_LENGTH,
  buildCatalogueIndex,
  isToolNameTooLong,
  namespacePrompt,
  namespaceResource,
  namespaceResourceTemplate,
  namespaceResourceUri,
  namespaceTool,
  namespaceToolName,
  type CatalogueEntry,
} from "../src/names";
import * as names from "../src/names";

function entry(partial: Partial<CatalogueEntry> & Pick<CatalogueEntry, "instanceId" | "slug">): CatalogueEntry {
  return { tools: [], resources: [], resourceTemplates: [], prompts: [], ...partial };
}

describe("namespacing", () => {
  it("joins tools and prompts with '-' and resources with '|'", () => {
    expect(namespaceToolName("github", "create_issue")).toBe("github-create_issue");
    expect(namespaceResourceUri("excalidraw", "ui://excalidraw/app.html")).toBe("ui://excalidraw/excalidraw/app.html");
  });

  it("flags names longer than 64 characters", () => {
    expect(MAX_CLIENT_TOOL_NAME_LENGTH).toBe(64);
    expect(isToolNameTooLong("a".repeat(64))).toBe(false);
    expect(isToolNameTooLong("a".repeat(65))).toBe(true);
  });

  it("offers no way to split a namespaced name back", () => {
    expect("stripNamespace" in names).toBe(false);
  });

  it("keeps every tool field and _meta, rewrites the UI resource URI and leaves the input untouched", () => {
    const tool: Tool = {
      name: "draw",
      title: "Draw",
      description: "Draws",
      inputSchema: { type: "object", properties: { shape: { type: "string" } } },
      outputSchema: { type: "object" },
      annotations: { readOnlyHint: true },
      _meta: { ui: { resourceUri: "ui://excalidraw/app.html", csp: "strict" }, "vendor/x": 1 },
    };
    const snapshot = structuredClone(tool);
    const out = namespaceTool("excalidraw", tool);
    expect(out).toEqual({
      ...snapshot,
      name: "excalidraw-draw",
      _meta: { ui: { resourceUri: "ui://excalidraw/excalidraw/app.html", csp: "strict" }, "vendor/x": 1 },
    });
    expect(tool).toEqual(snapshot);
    expect(out._meta).not.toBe(tool._meta);
  });

  it("rewrites the legacy flat 'ui/resourceUri' key too", () => {
    const out = namespaceTool("apps", {
      name: "t",
      inputSchema: { type: "object" },
      _meta: { "ui/resourceUri": "ui://a" },
    });
    expect(out._meta).toEqual({ "ui/resourceUri": "ui://apps/a" });
  });

  it("leaves a tool without _meta without one", () => {
    const out = namespaceTool("s", { name: "t", inputSchema: { type: "object" } });
    expect("_meta" in out).toBe(false);
  });

  it("namespaces resources, templates and prompts without touching other fields", () => {
    const r = { uri: "file:///a.txt", name: "a", mimeType: "text/plain", _meta: { k: 1 } };
    expect(namespaceResource("fs", r)).toEqual({ ...r, uri: "fs|file:///a.txt" });
    const t = { uriTemplate: "file:///{path}", name: "files" };
    expect(namespaceResourceTemplate("fs", t)).toEqual({ ...t, uriTemplate: "fs|file:///{path}" });
    const p = { name: "summarise", arguments: [{ name: "text", required: true }] };
    expect(namespacePrompt("my-server", p)).toEqual({ ...p, name: "my-server-summarise" });
    expect(r.uri).toBe("file:///a.txt");
  });
});

describe("catalogue index", () => {
  const index = buildCatalogueIndex([
    entry({
      instanceId: "i-fs",
      slug: "fs",
      tools: [{ name: "read_file" }],
      resources: [{ uri: "file:///readme.md" }],
      resourceTemplates: [{ uriTemplate: "file:///{+path}" }],
      prompts: [{ name: "review" }],
    }),
    entry({
      instanceId: "i-gh",
      slug: "git-hub",
      tools: [{ name: "create-issue" }],
      resourceTemplates: [{ uriTemplate: "repo://{owner}/{repo}" }],
    }),
    entry({ instanceId: "i-git", slug: "git", resourceTemplates: [{ uriTemplate: "hub|repo://{owner}/{repo}" }] }),
  ]);

  it("routes a namespaced tool to its instance and upstream name", () => {
    expect(index.resolveTool("fs-read_file")).toEqual({ instanceId: "i-fs", slug: "fs", name: "read_file" });
    expect(index.resolveTool("git-hub-create-issue")).toEqual({
      instanceId: "i-gh",
      slug: "git-hub",
      name: "create-issue",
    });
  });

  it("returns nothing for unknown names, including a bare upstream name", () => {
    expect(index.resolveTool("read_file")).toBeUndefined();
    expect(index.resolveTool("fs-write_file")).toBeUndefined();
    expect(index.resolvePrompt("fs-nope")).toBeUndefined();
  });

  it("routes prompts", () => {
    expect(index.resolvePrompt("fs-review")).toEqual({ instanceId: "i-fs", slug: "fs", name: "review" });
  });

  it("routes an exact listed resource before trying templates", () => {
    expect(index.resolveResource("fs|file:///readme.md")).toEqual({
      instanceId: "i-fs",
      slug: "fs",
      uri: "file:///readme.md",
    });
  });

  it("routes a URI through a template of the matching slug", () => {
    expect(index.resolveResource("fs|file:///src/index.ts")).toEqual({
      instanceId: "i-fs",
      slug: "fs",
      uri: "file:///src/index.ts",
      uriTemplate: "file:///{+path}",
    });
  });

  it("matches the whole slug before the separator, so 'git-hub|...' never routes to 'git'", () => {
    expect(index.resolveResource("git-hub|repo://acme/app")).toMatchObject({
      instanceId: "i-gh",
      uri: "repo://acme/app",
    });
  });

  it("keeps a '|' inside the upstream URI intact (no split on the last separator)", () => {
    // "git|hub|repo://..." belongs to slug "git", whose own template contains a '|'.
    expect(index.resolveResource("git|hub|repo://acme/app")).toMatchObject({
      instanceId: "i-git",
      uri: "hub|repo://acme/app",
    });
  });

  it("returns nothing when the slug is unknown or no template matches", () => {
    expect(index.resolveResource("other|file:///x")).toBeUndefined();
    expect(index.resolveResource("git-hub|file:///x")).toBeUndefined();
    expect(index.resolveResource("file:///readme.md")).toBeUndefined();
  });

  it("reports no collisions for a clean catalogue", () => {
    expect(index.collisions).toEqual([]);
  });
});

describe("catalogue index collisions", () => {
  const mine = entry({ instanceId: "i-b", slug: "my-server", tools: [{ name: "get-data" }], prompts: [{ name: "x" }] });
  const my = entry({
    instanceId: "i-a",
    slug: "my",
    tools: [{ name: "server-get-data" }, { name: "ping" }],
    prompts: [{ name: "server-x" }],
  });

  it("detects that 'my-server' + 'get-data' and 'my' + 'server-get-data' produce the same name", () => {
    const index = buildCatalogueIndex([my, mine]);
    expect(index.collisions).toContainEqual({
      kind: "tool",
      namespaced: "my-server-get-data",
      winner: { instanceId: "i-b", slug: "my-server", name: "get-data" },
      shadowed: [{ instanceId: "i-a", slug: "my", name: "server-get-data" }],
    });
    expect(index.collisions).toContainEqual(expect.objectContaining({ kind: "prompt", namespaced: "my-server-x" }));
  });

  it("resolves the collision to the longer slug whatever order the entries come in", () => {
    for (const order of [
      [my, mine],
      [mine, my],
    ]) {
      const index = buildCatalogueIndex(order);
      expect(index.resolveTool("my-server-get-data")).toEqual({
        instanceId: "i-b",
        slug: "my-server",
        name: "get-data",
      });
      expect(index.resolveTool("my-ping")).toEqual({ instanceId: "i-a", slug: "my", name: "ping" });
    }
  });

  it("breaks a tie between two instances with the same slug by instance id", () => {
    const a = entry({ instanceId: "i-2", slug: "dup", tools: [{ name: "t" }] });
    const b = entry({ instanceId: "i-1", slug: "dup", tools: [{ name: "t" }] });
    for (const order of [
      [a, b],
      [b, a],
    ]) {
      const index = buildCatalogueIndex(order);
      expect(index.resolveTool("dup-t")?.instanceId).toBe("i-1");
      expect(index.collisions).toHaveLength(1);
    }
  });
});

describe("MCP Apps UI links", () => {
  const meta = { "openai/outputTemplate": "ui://widget/board.html", other: 1 };

  it("rewrites the OpenAI Apps SDK outputTemplate link like the other UI link keys", () => {
    const tool = namespaceTool("my-demo", { name: "board", inputSchema: { type: "object" }, _meta: meta });
    expect(tool._meta).toEqual({ "openai/outputTemplate": "ui://my-demo/widget/board.html", other: 1 });
    expect(names.rewriteUiLinks(meta, (uri) => `${uri}#x`)).toEqual({
      "openai/outputTemplate": "ui://widget/board.html#x",
      other: 1,
    });
  });

  it("counts outputTemplate as a link, so a view linked only through it is hidden with its tools", () => {
    expect(names.uiResourceUris(meta)).toEqual(["ui://widget/board.html"]);
    const hidden = names.hiddenUiResources([{ _meta: meta }, { _meta: { other: 2 } }], [{ _meta: { other: 2 } }]);
    expect([...hidden]).toEqual(["ui://widget/board.html"]);
    expect([...names.hiddenUiResources([{ _meta: meta }], [{ _meta: meta }])]).toEqual([]);
  });
});

describe("resource references in a tool result", () => {
  it("names resource links and their UI links as the client reads them, and leaves embedded resources as read", () => {
    const result = {
      content: [
        { type: "text", text: "see the view" },
        { type: "resource_link", uri: "ui://charts/view.html", name: "view", _meta: { ui: { resourceUri: "ui://a" } } },
        { type: "resource", resource: { uri: "file:///report.md", text: "# Report" } },
        { type: "image", data: "AAAA", mimeType: "image/png" },
      ],
      _meta: { ui: { resourceUri: "ui://charts/view.html" }, other: 1 },
      structuredContent: { uri: "file:///untouched" },
    };
    const frozen = structuredClone(result);
    expect(names.namespaceResultResources("my-demo", result)).toEqual({
      content: [
        { type: "text", text: "see the view" },
        {
          type: "resource_link",
          uri: "ui://my-demo/charts/view.html",
          name: "view",
          _meta: { ui: { resourceUri: "ui://my-demo/a" } },
        },
        { type: "resource", resource: { uri: "file:///report.md", text: "# Report" } },
        { type: "image", data: "AAAA", mimeType: "image/png" },
      ],
      _meta: { ui: { resourceUri: "ui://my-demo/charts/view.html" }, other: 1 },
      structuredContent: { uri: "file:///untouched" },
    });
    expect(result).toEqual(frozen);
  });

  it("returns a result that names no resource as it is", () => {
    const plain = { content: [{ type: "text", text: "hi" }, { type: "resource_link" }], isError: false };
    expect(names.namespaceResultResources("my-demo", plain)).toBe(plain);
  });
});
