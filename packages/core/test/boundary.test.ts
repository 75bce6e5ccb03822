import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

import { describe, expect, it } from "vitest";

/**
 * packages/core is imported by both apps and must stay free of their infrastructure: it declares the small
 * interfaces it needs and the apps pass implementations in (STYLE.md, "Dependencies flow one way").
 */
const FORBIDDEN: ReadonlyArray<{ exact: string; subpaths: boolean }> = [
  { exact: "prisma", subpaths: false },
  { exact: "@prisma", subpaths: true }, // the whole scope: @prisma/client, @prisma/adapter-pg ...
  { exact: "@switchboard/db", subpaths: true },
  { exact: "@switchboard/web", subpaths: true },
  { exact: "@switchboard/worker", subpaths: true },
  { exact: "bullmq", subpaths: true },
  { exact: "ioredis", subpaths: true },
  { exact: "next", subpaths: true },
  { exact: "react", subpaths: true },
];

function isForbidden(specifier: string): boolean {
  return FORBIDDEN.some(
    ({ exact, subpaths }) => specifier === exact || (subpaths && specifier.startsWith(`${exact}/`)),
  );
}

const SPECIFIER_PATTERNS: readonly RegExp[] = [
  /\bfrom\s*["']([^"']+)["']/g, // import x from "m", import type {..} from "m", export * from "m" (multi-line too)
  /\bimport\s*["']([^"']+)["']/g, // import "m" (side effect)
  /\bimport\s*\(\s*["'`]([^"'`]+)["'`]/g, // import("m")
  /\brequire\s*\(\s*["'`]([^"'`]+)["'`]/g, // require("m")
];

/** Every module specifier the source imports, re-exports, dynamically imports or requires. */
function importedSpecifiers(source: string): string[] {
  const found: string[] = [];
  for (const pattern of SPECIFIER_PATTERNS) {
    for (const match of source.matchAll(pattern)) if (match[1] !== undefined) found.push(match[1]);
  }
  return found;
}

function forbiddenImports(source: string): string[] {
  return importedSpecifiers(source).filter(isForbidden);
}

const SRC = fileURLToPath(new URL("../src", import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    if (d.isDirectory()) return sourceFiles(path);
    return /\.(c|m)?(t|j)sx?$/.test(d.name) && !d.name.endsWith(".d.ts") ? [path] : [];
  });
}

describe("core boundary scanner", () => {
  it.each([
    ['import { PrismaClient } from "@prisma/client";', ["@prisma/client"]],
    ["import prisma from 'prisma';", ["prisma"]],
    ['import type { Job } from "bullmq";', ["bullmq"]],
    ['import {\n  Redis,\n} from "ioredis";', ["ioredis"]],
    ['import "next";', ["next"]],
    ['import { headers } from "next/headers";', ["next/headers"]],
    ['export { db } from "@switchboard/db/client";', ["@switchboard/db/client"]],
    ['export * from "@switchboard/worker";', ["@switchboard/worker"]],
    ['const m = await import("@switchboard/web");', ["@switchboard/web"]],
    ["const r = require('react');", ["react"]],
    ['const j = require("react/jsx-runtime");', ["react/jsx-runtime"]],
  ])("catches a planted violation: %s", (source, expected) => {
    expect(forbiddenImports(source)).toEqual(expected);
  });

  it.each([
    'import { z } from "zod";',
    'import { Client } from "@modelcontextprotocol/sdk/client/index.js";',
    'import { x } from "./next";',
    'import { y } from "next-auth";',
    'import { z } from "@switchboard/dbx";',
    'import { r } from "react-router";',
    'import { p } from "./prisma-like";',
    "// a comment about bullmq and ioredis without importing them",
  ])("lets an allowed import through: %s", (source) => {
    expect(forbiddenImports(source)).toEqual([]);
  });

  it("finds every kind of import in one file", () => {
    const source = [
      'import a from "a";',
      'export { b } from "b";',
      'import "c";',
      'const d = await import("d");',
      'const e = require("e");',
    ].join("\n");
    expect(importedSpecifiers(source).sort()).toEqual(["a", "b", "c", "d", "e"]);
  });
});

describe("packages/core/src", () => {
  it("imports none of Prisma, BullMQ, ioredis, Next, React or the apps", () => {
    const files = sourceFiles(SRC);
    expect(files.length).toBeGreaterThan(0);
    const violations = files.flatMap((file) =>
      forbiddenImports(readFileSync(file, "utf8")).map((spec) => `${relative(SRC, file)}: ${spec}`),
    );
    expect(violations).toEqual([]);
  });
});
