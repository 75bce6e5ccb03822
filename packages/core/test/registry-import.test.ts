import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { resolveLaunch } from "../src/config";
import { PRESETS, serverJsonOf, templateFromServerJson, type TemplateDraft } from "../src/registry";

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`./fixtures/server-json/${name}`, import.meta.url), "utf8")) as unknown;

function imported(name: string): { draft: TemplateDraft; notes: string[] } {
  const result = templateFromServerJson(fixture(name));
  if (!result.ok) throw new Error(result.message);
  return result;
}

describe("templateFromServerJson", () => {
  it("runs an npm package through npx with its arguments, and makes a secret a required personal setting", () => {
    const { draft } = imported("weather-npm.json");
    expect(draft).toMatchObject({ slug: "weather", name: "Weather", transport: "stdio", command: "npx", oauth: false });
    expect(draft.args).toEqual(["-y", "@example/weather-mcp@1.4.0", "--units", "{{units}}", "{{region}}"]);
    const byKey = Object.fromEntries(draft.fields.map((f) => [f.key, f]));
    expect(byKey.WEATHER_API_KEY).toMatchObject({ tier: "user", kind: "env", required: true, secret: true });
    expect(byKey.WEATHER_API_KEY).not.toHaveProperty("defaultValue");
    expect(byKey.WEATHER_CACHE_SECONDS).toMatchObject({
      tier: "team",
      kind: "env",
      type: "number",
      required: false,
      defaultValue: "300",
    });
    expect(byKey.units).toMatchObject({ tier: "team", kind: "arg", defaultValue: "celsius" });
    expect(byKey.units!.description).toContain("One of: celsius, fahrenheit.");
    expect(byKey.region).toMatchObject({ tier: "team", kind: "arg", required: true });
  });

  it("gives a launch that core resolves once the team and the member filled in their settings", () => {
    const { draft } = imported("weather-npm.json");
    const fields = draft.fields.map((f) => ({ ...f, defaultValue: f.defaultValue ?? null }));
    const launch = resolveLaunch({
      template: { transport: "stdio", command: draft.command!, args: draft.args },
      fields,
      teamValues: { region: "eu" },
      userValues: { WEATHER_API_KEY: "k-1" },
    });
    expect(launch).toMatchObject({
      command: "npx",
      args: ["-y", "@example/weather-mcp@1.4.0", "--units", "celsius", "eu"],
      env: { WEATHER_API_KEY: "k-1", WEATHER_CACHE_SECONDS: "300" },
    });
  });

  it("connects to a remote with its headers: secrets personal, required team headers required, fixed values as defaults", () => {
    const { draft } = imported("remote-with-headers.json");
    expect(draft).toMatchObject({
      slug: "issues",
      transport: "streamable_http",
      url: "http://127.0.0.1:3999/mcp",
      args: [],
    });
    expect(draft.fields).toEqual([
      expect.objectContaining({ key: "X-Api-Key", kind: "header", tier: "user", required: true, secret: true }),
      expect.objectContaining({ key: "X-Workspace", kind: "header", tier: "team", required: true, secret: false }),
      expect.objectContaining({
        key: "X-Client",
        kind: "header",
        tier: "team",
        required: false,
        defaultValue: "switchboard",
      }),
    ]);
  });

  it("reads the registry's first snake_case drafts and runs a PyPI package through uvx", () => {
    const { draft } = imported("legacy-snake-case.json");
    expect(draft).toMatchObject({ command: "uvx", args: ["weather-mcp-server==0.5.0"] });
    expect(draft.fields.map((f) => [f.key, f.tier, f.secret])).toEqual([
      ["WEATHER_API_KEY", "user", true],
      ["WEATHER_UNITS", "team", false],
    ]);
  });

  it("says readably why a document cannot be imported", () => {
    expect(templateFromServerJson(fixture("docker-only.json"))).toEqual({
      ok: false,
      message: expect.stringMatching(/cannot run this server's packages \(oci\)/),
    });
    expect(templateFromServerJson({ description: "no name" })).toEqual({
      ok: false,
      message: expect.stringMatching(/^This is not a server.json the registry would accept: name/),
    });
    expect(templateFromServerJson("nonsense")).toMatchObject({ ok: false });
  });

  it("unwraps a registry API answer ({ server, _meta }) to its server.json", () => {
    const answer = {
      server: fixture("remote-with-headers.json"),
      _meta: { "io.modelcontextprotocol.registry/official": { isLatest: true } },
    };
    expect(templateFromServerJson(serverJsonOf(answer))).toMatchObject({ ok: true, draft: { slug: "issues" } });
  });

  it("imports every built-in preset, each with a distinct slug", () => {
    const drafts = PRESETS.map((p) => imported2(p));
    expect(new Set(drafts.map((d) => d.slug)).size).toBe(PRESETS.length);
    expect(drafts.find((d) => d.slug === "everything")).toMatchObject({
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-everything"],
    });
    expect(drafts.find((d) => d.slug === "filesystem")!.fields).toEqual([
      expect.objectContaining({ key: "allowed_directory", tier: "team", required: true }),
    ]);
  });
});

function imported2(doc: unknown): TemplateDraft {
  const result = templateFromServerJson(doc);
  if (!result.ok) throw new Error(result.message);
  return result.draft;
}
