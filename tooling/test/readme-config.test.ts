import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

import { beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";

/**
 * The README's configuration table is what an operator reads; the env schemas are what the processes parse. Every
 * variable of every schema (`apps/<app>/src/env.ts` and `packages/<pkg>/src/env.ts`, each exporting `envSchema`)
 * has a row naming that process with the schema's default, and every row naming a process is in its schema.
 */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

interface Row {
  name: string;
  usedBy: string[];
  /** The default cell for this name: a literal when it is one backticked value, else the text as written. */
  defaultCell: string;
}

/** Rows of the table under `## Configuration`: `| variable | used by | default | meaning |`. */
function readmeRows(): Row[] {
  const readme = readFileSync(`${ROOT}README.md`, "utf8");
  const section = readme.split(/^## Configuration\s*$/m)[1]?.split(/^## /m)[0] ?? "";
  const rows: Row[] = [];
  for (const line of section.split("\n")) {
    if (!line.startsWith("| `")) continue;
    const [names = "", usedBy = "", defaults = ""] = line.split(" | ").map((c) => c.replace(/^\| /, "").trim());
    const listed = [...names.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? "");
    const first = listed[0] ?? "";
    // `STDIO_SANDBOX_MEMORY_MB` / `_PROCESSES`: a suffix shares the first name's prefix.
    const prefix = first.slice(0, first.indexOf("_", first.indexOf("SANDBOX_") + 1) + 1) || first;
    const full = listed.map((n) => (n.startsWith("_") ? `${prefix.replace(/_$/, "")}${n}` : n));
    const cells = listed.length > 1 ? defaults.split(" / ") : [defaults];
    full.forEach((name, i) => {
      rows.push({
        name,
        usedBy: usedBy.split(",").map((u) => u.trim()),
        defaultCell: (cells[i] ?? "").trim(),
      });
    });
  }
  return rows;
}

/** What the schema does with an unset variable: required, no default, or the default as the README would write it. */
function schemaDefault(field: z.ZodType): { kind: "required" } | { kind: "none" } | { kind: "value"; text: string } {
  const result = field.safeParse(undefined);
  if (!result.success) return { kind: "required" };
  const value: unknown = result.data;
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return { kind: "none" };
  return { kind: "value", text: String(value) };
}

/** By owner: an app (`web`, `worker`, ...: a process the README's "used by" names) or a package. */
let schemas: Map<string, Record<string, z.ZodType>>;
/** Packages run inside the apps: their variables need a row, under whichever processes load them. */
const libraries = new Set<string>();
let rows: Row[];

beforeAll(async () => {
  schemas = new Map();
  // packages/testing's env.ts sets the test environment up (values for tests), it reads no configuration.
  const files = ["apps", "packages"].flatMap((dir) =>
    readdirSync(`${ROOT}${dir}`)
      .filter((owner) => !(dir === "packages" && owner === "testing"))
      .map((owner) => ({ owner, file: `${dir}/${owner}/src/env.ts`, library: dir === "packages" })),
  );
  for (const { owner, file, library } of files.filter((f) => existsSync(`${ROOT}${f.file}`))) {
    if (library) libraries.add(owner);
    const mod = (await import(pathToFileURL(`${ROOT}${file}`).href)) as { envSchema?: z.ZodObject };
    if (!mod.envSchema) throw new Error(`${file} exports no envSchema: the README check cannot see its variables`);
    schemas.set(owner, mod.envSchema.shape as Record<string, z.ZodType>);
  }
  rows = readmeRows();
});

describe("README configuration table", () => {
  it("finds the schemas and the table", () => {
    expect([...schemas.keys()]).toEqual(expect.arrayContaining(["db", "worker"]));
    expect(rows.length).toBeGreaterThan(20);
  });

  it("lists every schema variable under the process that reads it", () => {
    const missing: string[] = [];
    for (const [owner, shape] of schemas) {
      for (const name of Object.keys(shape)) {
        const row = rows.find((r) => r.name === name);
        if (!row) missing.push(`${name} (${owner}): no row`);
        else if (!libraries.has(owner) && !row.usedBy.includes(owner))
          missing.push(`${name}: "used by" lacks ${owner}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("names no variable a process does not read", () => {
    const strays: string[] = [];
    for (const row of rows) {
      for (const process of row.usedBy.filter((u) => schemas.has(u) && !libraries.has(u))) {
        const own = schemas.get(process) ?? {};
        const viaLibrary = [...libraries].some((lib) => row.name in (schemas.get(lib) ?? {}));
        if (!(row.name in own) && !viaLibrary) strays.push(`${row.name}: ${process} does not read it`);
      }
    }
    expect(strays).toEqual([]);
  });

  it("gives each variable the default its schema has", () => {
    const wrong: string[] = [];
    for (const [owner, shape] of schemas) {
      for (const [name, field] of Object.entries(shape)) {
        const row = rows.find((r) => r.name === name);
        if (!row) continue;
        const cell = row.defaultCell;
        // A cell that starts with a backticked value states a default ("`0` (a free port)"); "(...)" is prose.
        const literal = /^`([^`]*)`/.exec(cell)?.[1];
        const actual = schemaDefault(field);
        if (actual.kind === "required" && !cell.startsWith("(required")) {
          wrong.push(`${name} (${owner}): required, README says ${cell}`);
        } else if (actual.kind === "value" && literal !== actual.text) {
          wrong.push(`${name} (${owner}): default ${actual.text}, README says ${cell}`);
        } else if (actual.kind === "none" && literal !== undefined && !libraries.has(owner)) {
          // No default in the schema: a literal in the README must come from the code that uses the value.
          wrong.push(`${name} (${owner}): no default in the schema, README says ${cell} (explain where it comes from)`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});
