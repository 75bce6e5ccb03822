import { describe, expect, it } from "vitest";

import {
  InvalidConfigValueError,
  MissingConfigError,
  maskSecret,
  missingRequiredFields,
  resolveLaunch,
  validateFieldKey,
  validateFieldValue,
  type ConfigField,
} from "../src/config";

function field(partial: Partial<ConfigField> & Pick<ConfigField, "key">): ConfigField {
  return { tier: "team", kind: "arg", type: "string", required: false, secret: false, ...partial };
}

const stdio = (args: string[]) => ({ transport: "stdio" as const, command: "npx", args });

describe("resolveLaunch for stdio", () => {
  it("substitutes a placeholder that is a whole arg and one inside a larger arg", () => {
    const launch = resolveLaunch({
      template: stdio(["-y", "server", "{{root}}", "--token={{token}}"]),
      fields: [field({ key: "root" }), field({ key: "token", tier: "user", secret: true })],
      teamValues: { root: "/data" },
      userValues: { token: "tok_123" },
    });
    expect(launch).toEqual({
      transport: "stdio",
      command: "npx",
      args: ["-y", "server", "/data", "--token=tok_123"],
      env: {},
    });
  });

  it("appends a value whose key has no placeholder as its own argument, in field order", () => {
    const launch = resolveLaunch({
      template: stdio(["server"]),
      fields: [field({ key: "dirA" }), field({ key: "dirB", tier: "user" })],
      teamValues: { dirA: "/a" },
      userValues: { dirB: "/b" },
    });
    expect(launch).toMatchObject({ args: ["server", "/a", "/b"] });
  });

  it("drops an arg that was only the placeholder of an empty optional value", () => {
    const launch = resolveLaunch({
      template: stdio(["server", "{{extra}}", "--flag={{extra}}", "end"]),
      fields: [field({ key: "extra" })],
      teamValues: {},
      userValues: {},
    });
    expect(launch).toMatchObject({ args: ["server", "--flag=", "end"] });
  });

  it("lets the member's value and the team's value each fill only their own tier", () => {
    const launch = resolveLaunch({
      template: stdio(["{{teamKey}}", "{{userKey}}"]),
      fields: [
        field({ key: "teamKey", defaultValue: "team-default" }),
        field({ key: "userKey", tier: "user", defaultValue: "user-default" }),
      ],
      teamValues: { teamKey: "team-set", userKey: "team-tries-user-field" },
      userValues: { teamKey: "member-tries-team-field", userKey: "member-set" },
    });
    expect(launch).toMatchObject({ args: ["team-set", "member-set"] });
  });

  it("falls back to the template default when no tier supplies a value", () => {
    const launch = resolveLaunch({
      template: stdio(["{{port}}"]),
      fields: [field({ key: "port", type: "number", defaultValue: "8080" })],
      teamValues: {},
      userValues: { port: "9999" }, // wrong tier: ignored
    });
    expect(launch).toMatchObject({ args: ["8080"] });
  });

  it("leaves placeholders that name no field untouched", () => {
    const launch = resolveLaunch({
      template: stdio(["{{unknown}}", "a{{nope}}b"]),
      fields: [],
      teamValues: {},
      userValues: {},
    });
    expect(launch).toMatchObject({ args: ["{{unknown}}", "a{{nope}}b"] });
  });

  it("puts env fields on top of the base env and skips empty ones", () => {
    const launch = resolveLaunch({
      template: stdio([]),
      fields: [
        field({ key: "API_KEY", kind: "env", tier: "user" }),
        field({ key: "PATH", kind: "env" }),
        field({ key: "EMPTY", kind: "env" }),
      ],
      teamValues: { PATH: "/custom/bin" },
      userValues: { API_KEY: "k" },
      baseEnv: { PATH: "/usr/bin", HOME: "/home/app" },
    });
    expect(launch).toMatchObject({ env: { PATH: "/custom/bin", HOME: "/home/app", API_KEY: "k" } });
    expect(launch.transport === "stdio" && "EMPTY" in launch.env).toBe(false);
  });

  it("ignores header and query fields for a process", () => {
    const launch = resolveLaunch({
      template: stdio(["s"]),
      fields: [field({ key: "Authorization", kind: "header" }), field({ key: "q", kind: "query" })],
      teamValues: { Authorization: "Bearer x", q: "1" },
      userValues: {},
    });
    expect(launch).toEqual({ transport: "stdio", command: "npx", args: ["s"], env: {} });
  });

  it("refuses to launch with a required field missing", () => {
    const run = () =>
      resolveLaunch({
        template: stdio(["{{token}}"]),
        fields: [field({ key: "token", tier: "user", required: true })],
        teamValues: { token: "team-cannot-fill-it" },
        userValues: {},
      });
    expect(run).toThrow(MissingConfigError);
    expect(run).toThrow(/token/);
  });
});

describe("argument values that look like options", () => {
  it("refuses a member's value starting with '-' at launch, with the sentence the member saw when saving", () => {
    const run = () =>
      resolveLaunch({
        template: stdio(["server", "{{path}}"]),
        fields: [field({ key: "path", label: "Folder", tier: "user" })],
        teamValues: {},
        userValues: { path: "--evil" },
      });
    expect(run).toThrow(InvalidConfigValueError);
    expect(run).toThrow(
      'Folder cannot start with "-", because the server would read it as an option; remove the dash or ask an admin to change this setting.',
    );
  });

  it("refuses a team value starting with '-' too, and an appended one, but not the template's own default", () => {
    const team = () =>
      resolveLaunch({
        template: stdio(["server"]),
        fields: [field({ key: "extra" })],
        teamValues: { extra: "-rf" },
        userValues: {},
      });
    expect(team).toThrow(InvalidConfigValueError);
    const byDefault = resolveLaunch({
      template: stdio(["server", "{{mode}}"]),
      fields: [field({ key: "mode", defaultValue: "--stdio" })],
      teamValues: {},
      userValues: {},
    });
    expect(byDefault).toMatchObject({ args: ["server", "--stdio"] });
  });

  it("puts an after_separator field's values after '--' at the end, whatever they start with, and leaves the others in place", () => {
    const launch = resolveLaunch({
      template: stdio(["server", "{{dir}}", "--verbose", "--name={{name}}"]),
      fields: [
        field({ key: "dir", tier: "user", optionValues: "after_separator" }),
        field({ key: "name", tier: "user", optionValues: "after_separator" }),
        field({ key: "more", tier: "user", optionValues: "after_separator" }),
        field({ key: "plain", tier: "team" }),
      ],
      teamValues: { plain: "p" },
      userValues: { dir: "--evil", name: "-n", more: "/tmp/x" },
    });
    expect(launch).toMatchObject({ args: ["server", "--verbose", "--name=-n", "p", "--", "--evil", "/tmp/x"] });
  });

  it("adds no separator when an after_separator field has no value", () => {
    const launch = resolveLaunch({
      template: stdio(["server", "{{dir}}"]),
      fields: [field({ key: "dir", tier: "user", optionValues: "after_separator" })],
      teamValues: {},
      userValues: {},
    });
    expect(launch).toMatchObject({ args: ["server"] });
  });

  it("refuses such a value when it is saved, unless the field puts it after '--'", () => {
    expect(validateFieldValue(field({ key: "path", label: "Folder", tier: "user" }), "--evil")).toBe(
      'Folder cannot start with "-", because the server would read it as an option; remove the dash or ask an admin to change this setting.',
    );
    expect(
      validateFieldValue(field({ key: "path", tier: "user", optionValues: "after_separator" }), "--evil"),
    ).toBeNull();
    expect(validateFieldValue(field({ key: "X-Key", kind: "header", tier: "user" }), "-abc")).toBeNull();
    expect(validateFieldValue(field({ key: "path", tier: "user" }), "a-b")).toBeNull();
  });
});

describe("resolveLaunch for HTTP", () => {
  it("sets headers and merges query parameters into the template URL", () => {
    const launch = resolveLaunch({
      template: { transport: "streamable_http", url: "https://api.example.com/mcp?region=eu&v=1" },
      fields: [
        field({ key: "Authorization", kind: "header", tier: "user" }),
        field({ key: "region", kind: "query" }),
        field({ key: "workspace", kind: "query", tier: "user" }),
        field({ key: "ignoredArg", kind: "arg" }),
        field({ key: "IGNORED_ENV", kind: "env" }),
      ],
      teamValues: { region: "us", ignoredArg: "x", IGNORED_ENV: "y" },
      userValues: { Authorization: "Bearer abc", workspace: "a b&c" },
    });
    expect(launch.transport).toBe("streamable_http");
    if (launch.transport === "stdio") throw new Error("unreachable");
    expect(launch.headers).toEqual({ Authorization: "Bearer abc" });
    const url = new URL(launch.url);
    expect(url.origin + url.pathname).toBe("https://api.example.com/mcp");
    expect(Object.fromEntries(url.searchParams)).toEqual({ region: "us", v: "1", workspace: "a b&c" });
  });

  it("keeps the template's query parameter when the field is empty", () => {
    const launch = resolveLaunch({
      template: { transport: "sse", url: "https://x.test/sse?region=eu" },
      fields: [field({ key: "region", kind: "query" })],
      teamValues: { region: "" },
      userValues: {},
    });
    expect(launch).toEqual({ transport: "sse", url: "https://x.test/sse?region=eu", headers: {} });
  });
});

describe("missingRequiredFields", () => {
  const fields = [
    field({ key: "teamToken", required: true }),
    field({ key: "userToken", tier: "user", required: true }),
    field({ key: "withDefault", tier: "user", required: true, defaultValue: "d" }),
    field({ key: "optional", tier: "user" }),
  ];

  it.each<[string, Record<string, string>, Record<string, string>, "team" | "user" | undefined, string[]]>([
    ["nothing filled", {}, {}, undefined, ["teamToken", "userToken"]],
    ["only the member's tier", {}, {}, "user", ["userToken"]],
    ["only the team's tier", {}, {}, "team", ["teamToken"]],
    ["all filled", { teamToken: "t" }, { userToken: "u" }, undefined, []],
    ["an empty string", { teamToken: "t" }, { userToken: "" }, undefined, ["userToken"]],
    ["a value at the wrong tier", { teamToken: "t", userToken: "u" }, {}, undefined, ["userToken"]],
  ])("reports %s", (_name, team, user, tier, expected) => {
    expect(missingRequiredFields(fields, team, user, tier)).toEqual(expected);
  });
});

describe("validateFieldValue", () => {
  it.each<[ConfigField["type"], string, boolean]>([
    ["string", "anything", true],
    ["number", "42", true],
    ["number", "-3.5", true],
    ["number", "4x", false],
    ["number", " ", false],
    ["number", "Infinity", false],
    ["boolean", "true", true],
    ["boolean", "false", true],
    ["boolean", "yes", false],
    ["boolean", "TRUE", false],
    ["url", "https://example.com/mcp", true],
    ["url", "http://localhost:3000", true],
    ["url", "not a url", false],
    ["url", "file:///etc/passwd", false],
  ])("%s %j valid: %s", (type, value, ok) => {
    // An env field: the type rules alone (an arg value starting with "-" has its own rule, tested above).
    const result = validateFieldValue(field({ key: "k", label: "Key", kind: "env", type }), value);
    if (ok) expect(result).toBeNull();
    else expect(result).toMatch(/^Key /);
  });

  it("accepts an empty optional value and rejects an empty required one", () => {
    expect(validateFieldValue(field({ key: "k", type: "number" }), "")).toBeNull();
    expect(validateFieldValue(field({ key: "k", type: "number", required: true }), "")).toBe("k is required.");
  });
});

describe("secrets shown in the console", () => {
  it.each([
    ["sk-live-abcdef12f3a9", "••••••f3a9"],
    ["123456789012", "••••••9012"],
    ["12345678901", "••••••••••"],
    ["abc", "••••••••••"],
    ["", "••••••••••"],
  ])("masks %j as %s", (value, masked) => {
    expect(maskSecret(value)).toBe(masked);
  });
});

describe("validateFieldValue: header and query values", () => {
  const header = field({ key: "X-Api-Key", label: "API key", kind: "header", tier: "user" });
  const query = field({ key: "region", label: "Region", kind: "query" });
  const env = field({ key: "PEM", label: "Certificate", kind: "env" });

  it.each([
    ["CR/LF (header injection)", "abc\r\nX-Admin: 1"],
    ["a bare LF", "abc\ndef"],
    ["a bare CR", "abc\rdef"],
    ["a NUL", "abc\u0000"],
    ["another control character", "abc\u001bdef"],
    ["DEL", "abc\u007f"],
  ])("refuses %s in a header value, naming the field", (_what, value) => {
    expect(validateFieldValue(header, value)).toMatch(
      /^API key cannot contain (a NUL character|line breaks or control characters: it is sent in an HTTP header)\.$/,
    );
  });

  it("refuses characters beyond Latin-1 in a header value and accepts Latin-1, tabs and visible ASCII", () => {
    expect(validateFieldValue(header, "token-€")).toBe(
      "API key cannot contain “€”: HTTP header values take Latin-1 characters only.",
    );
    expect(validateFieldValue(header, "emoji 🙂")).toMatch(/Latin-1 characters only/);
    expect(validateFieldValue(header, "Bearer abc.DEF_123~+/=")).toBeNull();
    expect(validateFieldValue(header, "café\tdéjà")).toBeNull();
  });

  it("refuses control characters in a query value but any Unicode text is fine there", () => {
    expect(validateFieldValue(query, "eu\r\nwest")).toBe(
      "Region cannot contain line breaks or control characters: it is sent in the server's URL.",
    );
    expect(validateFieldValue(query, "Zürich €")).toBeNull();
  });

  it("lets an environment value span lines but never hold a NUL", () => {
    expect(validateFieldValue(env, "-----BEGIN KEY-----\nabc\n-----END KEY-----")).toBeNull();
    expect(validateFieldValue(env, "a\u0000b")).toBe("Certificate cannot contain a NUL character.");
  });

  it("names the field by its key when it has no label", () => {
    expect(validateFieldValue(field({ key: "X-Token", label: "", kind: "header" }), "a\nb")).toMatch(
      /^X-Token cannot contain/,
    );
  });
});

describe("validateFieldKey", () => {
  it("accepts RFC 9110 tokens as header names and refuses anything else", () => {
    expect(validateFieldKey("header", "X-Api-Key")).toBeNull();
    expect(validateFieldKey("header", "x_custom.v2!")).toBeNull();
    for (const key of ["X Api", "X-Api:", "X-Api\r\nHost", "Ünïcode", "(x)"])
      expect(validateFieldKey("header", key), key).toMatch(/not a valid HTTP header name/);
  });

  it("refuses control characters in any field name", () => {
    expect(validateFieldKey("query", "a\nb")).toBe("A field name cannot contain line breaks or control characters.");
    expect(validateFieldKey("query", "region")).toBeNull();
  });
});
