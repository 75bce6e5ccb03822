import { describe, expect, it } from "vitest";
import {
  changesRestart,
  definitionChanges,
  unfilledRequired,
  type ConfigField,
  type ServerDefinition,
} from "../src/config";

const key: ConfigField = {
  key: "X-Api-Key",
  tier: "user",
  kind: "header",
  type: "string",
  required: true,
  secret: true,
};
const remote: ServerDefinition = {
  name: "Docs",
  description: "Team docs",
  transport: "streamable_http",
  url: "https://docs.example.com/mcp",
  command: null,
  args: [],
  oauth: false,
  fields: [key],
};

describe("definitionChanges", () => {
  it("finds nothing when nothing changed", () => {
    expect(definitionChanges(remote, { ...remote, fields: [{ ...key }] })).toEqual([]);
  });

  it("says a new name and description restart nothing", () => {
    const changes = definitionChanges(remote, { ...remote, name: "Docs v2", description: "All the docs" });
    expect(changes.map((c) => [c.part, c.before, c.after, c.restarts])).toEqual([
      ["name", "Docs", "Docs v2", false],
      ["description", "Team docs", "All the docs", false],
    ]);
    expect(changesRestart(changes)).toBe(false);
  });

  it("says a new URL restarts the instances, next to a description change that does not", () => {
    const changes = definitionChanges(remote, { ...remote, description: "New", url: "https://new.example.com/mcp" });
    expect(changes.map((c) => [c.part, c.restarts])).toEqual([
      ["description", false],
      ["url", true],
    ]);
    expect(changesRestart(changes)).toBe(true);
  });

  it("restarts for a settings schema change but not for a new field description", () => {
    expect(
      changesRestart(definitionChanges(remote, { ...remote, fields: [{ ...key, description: "Your key" }] })),
    ).toBe(false);
    const required = definitionChanges(remote, { ...remote, fields: [{ ...key, required: false }] });
    expect(required.map((c) => c.part)).toEqual(["settings"]);
    expect(changesRestart(required)).toBe(true);
  });

  it("compares a stdio launch by command and arguments, and a transport switch as both", () => {
    const local: ServerDefinition = { ...remote, transport: "stdio", url: null, command: "npx", args: ["-y", "a"] };
    expect(definitionChanges(local, { ...local, args: ["-y", "b"] }).map((c) => [c.part, c.before, c.after])).toEqual([
      ["args", "-y a", "-y b"],
    ]);
    expect(definitionChanges(remote, local).map((c) => c.part)).toEqual(["transport", "url", "command", "args"]);
  });

  it("leaves out a name or description the edit does not carry", () => {
    expect(definitionChanges(remote, { ...remote, name: undefined, description: undefined })).toEqual([]);
  });
});

describe("unfilledRequired", () => {
  const fields = [
    { key: "a", required: true },
    { key: "b", required: true, defaultValue: "x" },
    { key: "c", required: true, set: true },
    { key: "d", required: false },
  ];

  it("lists a required field with no value, default or stored value", () => {
    expect(unfilledRequired(fields, {}).map((f) => f.key)).toEqual(["a"]);
  });

  it("counts spaces as no value and clears once something is typed", () => {
    expect(unfilledRequired(fields, { a: "  " }).map((f) => f.key)).toEqual(["a"]);
    expect(unfilledRequired(fields, { a: "k" })).toEqual([]);
  });
});
