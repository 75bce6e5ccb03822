import { fileURLToPath } from "node:url";

import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * The house rules are only rules if a wrong file fails `npm run lint`. Each case lints a scratch file (text given to
 * ESLint's Node API under a path in the tree, through the repository's own eslint.config.mjs) and names the rule
 * that must fire, or asserts that an allowed file stays clean.
 */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: ROOT });
});

async function errors(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\n`, { filePath: `${ROOT}${path}` });
  return (result?.messages ?? []).filter((m) => m.severity === 2).map((m) => `${m.ruleId}: ${m.message}`);
}

/** Static imports by name: no-restricted-imports; `import()`, `require()` and relative paths: the local rule. */
const IMPORT = /^(no-restricted-imports|local\/layers): /;

describe("layer rules", () => {
  it.each([
    ["packages/core/src/scratch.ts", 'import { PrismaClient } from "@prisma/client";'],
    ["packages/core/src/scratch.ts", 'import { Queue } from "bullmq";'],
    ["packages/core/src/scratch.ts", 'import type { Redis } from "ioredis";'],
    ["packages/core/src/scratch.ts", 'import { headers } from "next/headers";'],
    ["packages/core/src/scratch.ts", 'import { useState } from "react";'],
    ["packages/core/src/scratch.ts", 'import { Pool } from "pg";'],
    ["packages/core/src/scratch.ts", 'import pino from "pino";'],
    ["packages/core/src/scratch.ts", 'import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";'],
    ["packages/core/src/scratch.ts", 'export { db } from "@switchboard/db/client";'],
    ["packages/core/src/scratch.ts", 'const m = await import("@switchboard/worker");\nvoid m;'],
    ["packages/core/src/scratch.ts", 'const { Queue } = require("bullmq");\nvoid Queue;'],
    ["apps/web/src/scratch.ts", 'import { startGateway } from "@switchboard/gateway";\nvoid startGateway;'],
    ["apps/web/src/server/scratch.ts", 'import { x } from "../../../gateway/src/main";\nvoid x;'],
    ["apps/web/src/scratch.ts", 'import { main } from "@switchboard/worker/src/main";\nvoid main;'],
    ["apps/web/src/scratch.ts", 'export * from "../../gateway/src/mcp/http";'],
    ["apps/web/test/scratch.test.ts", 'import { x } from "../../worker/src/queue";\nvoid x;'],
    ["apps/web/src/scratch.ts", 'import { PrismaClient } from "@prisma/client";\nvoid PrismaClient;'],
    ["apps/web/src/scratch.ts", 'import { Prisma } from "@switchboard/db/generated";\nvoid Prisma;'],
    [
      "apps/gateway/src/scratch.ts",
      'import { appRouter } from "@switchboard/web/src/server/trpc/root";\nvoid appRouter;',
    ],
    ["apps/gateway/src/scratch.ts", 'import { x } from "../../web/src/env";\nvoid x;'],
    ["apps/gateway/src/scratch.ts", 'import { x } from "@switchboard/worker";\nvoid x;'],
    ["apps/gateway/src/scratch.ts", 'import { x } from "../../web/test/support/caller";\nvoid x;'],
    ["apps/gateway/test/scratch.test.ts", 'import { x } from "../../web/src/server/trpc/root";\nvoid x;'],
    ["apps/gateway/test/scratch.test.ts", 'import { x } from "../../web/test/support/caller";\nvoid x;'],
    ["apps/web/test/scratch.test.ts", 'import { x } from "../../../tests/integration/test/support";\nvoid x;'],
    ["packages/testing/src/scratch.ts", 'import { x } from "@switchboard/integration-tests/test/x";\nvoid x;'],
    ["tests/integration/test/scratch.test.ts", 'import { PrismaClient } from "@prisma/client";\nvoid PrismaClient;'],
    ["apps/worker/src/scratch.ts", 'import { env } from "../../web/src/env";\nvoid env;'],
    ["apps/worker/src/scratch.ts", 'import { x } from "@switchboard/gateway/src/mcp/http";\nvoid x;'],
    ["apps/worker/src/scratch.ts", 'import { PrismaPg } from "@prisma/adapter-pg";\nvoid PrismaPg;'],
    ["packages/runtime/src/scratch.ts", 'import { env } from "@switchboard/web/src/env";\nvoid env;'],
    ["packages/runtime/src/scratch.ts", 'import { PrismaClient } from "@prisma/client";\nvoid PrismaClient;'],
    ["packages/runtime/src/scratch.ts", 'import { getDb } from "@switchboard/db/client";\nvoid getDb;'],
    ["packages/runtime/src/scratch.ts", 'import { headers } from "next/headers";\nvoid headers;'],
    ["packages/runtime/src/scratch.ts", 'const m = await import("@switchboard/gateway");\nvoid m;'],
    ["apps/web/src/scratch.ts", 'import { waitUntil } from "@switchboard/testing/wait";\nvoid waitUntil;'],
    ["apps/gateway/src/scratch.ts", 'import { freePort } from "@switchboard/testing/net";\nvoid freePort;'],
    [
      "packages/runtime/src/scratch.ts",
      'import { TestUpstream } from "@switchboard/testing/upstream";\nvoid TestUpstream;',
    ],
    ["packages/db/src/scratch.ts", 'import { x } from "@switchboard/testing/env";\nvoid x;'],
    [
      "scripts/scratch.ts",
      'import { PrismaClient } from "../packages/db/src/generated/prisma/client";\nvoid PrismaClient;',
    ],
    [
      "apps/worker/src/scratch.ts",
      'import type { Prisma } from "@switchboard/db/client";\nexport let x: Prisma.JsonValue;',
    ],
    ["apps/web/src/server/scratch.ts", 'import { Prisma, getDb } from "@switchboard/db";\nvoid Prisma; void getDb;'],
    [
      "apps/web/src/server/services/scratch.service.ts",
      'import type { TemplateInput } from "../trpc/routers/catalogue.schema";\nexport let x: TemplateInput;',
    ],
    [
      "apps/web/src/server/services/scratch.service.ts",
      'import { ok } from "~/server/trpc/routers/shared.schema";\nvoid ok;',
    ],
    ["apps/web/src/server/services/scratch.service.ts", 'const m = await import("../trpc/routers/team");\nvoid m;'],
  ])("%s fails with `%s`", async (path, code) => {
    const found = await errors(path, code);
    expect(found.some((e) => IMPORT.test(e))).toBe(true);
  });

  it.each([
    [
      "packages/core/src/scratch.ts",
      'import { z } from "zod";\nimport { x } from "./next";\nimport { y } from "next-auth";\nvoid z; void x; void y;',
    ],
    [
      "packages/core/src/scratch.ts",
      'import { Client } from "@modelcontextprotocol/sdk/client/index.js";\nvoid Client;',
    ],
    [
      "packages/db/src/scratch.ts",
      'import { PrismaClient } from "./generated/prisma/client";\nimport { PrismaPg } from "@prisma/adapter-pg";\nvoid PrismaClient; void PrismaPg;',
    ],
    [
      "apps/web/src/scratch.ts",
      'import { db } from "@switchboard/db/client";\nimport { Queue } from "bullmq";\nvoid db; void Queue;',
    ],
    [
      "apps/gateway/src/scratch.ts",
      'import { db } from "@switchboard/db/client";\nimport { proxy } from "@switchboard/core/proxy";\nvoid db; void proxy;',
    ],
    [
      "apps/worker/src/scratch.ts",
      'import { Worker } from "bullmq";\nimport { gatewayish } from "./gateway";\nvoid Worker; void gatewayish;',
    ],
    [
      "apps/web/src/server/mcp/scratch.ts",
      'import { forward } from "../gateway/forward";\nimport { w } from "../../worker/x";\nvoid forward; void w;',
    ],
    ["apps/worker/test/scratch.test.ts", 'import { x } from "../src/web/x";\nvoid x;'],
    [
      "tests/integration/test/scratch.test.ts",
      'import { x } from "../../../apps/web/test/support/caller";\nimport { y } from "../../../apps/gateway/src/mcp/http";\nimport { z } from "./fixtures/z";\nvoid x; void y; void z;',
    ],
    [
      "packages/runtime/src/scratch.ts",
      'import { Queue } from "bullmq";\nimport { Redis } from "ioredis";\nimport { redisKeys } from "@switchboard/core/contracts";\nvoid Queue; void Redis; void redisKeys;',
    ],
    ["apps/web/test/scratch.test.ts", 'import { waitUntil } from "@switchboard/testing/wait";\nvoid waitUntil;'],
    ["packages/core/src/scratch.ts", 'import { trace } from "@opentelemetry/api";\nvoid trace;'],
    [
      "packages/db/src/testing/scratch.ts",
      'import { PrismaClient } from "../generated/prisma/client";\nvoid PrismaClient;',
    ],
    ["packages/db/src/queries/scratch.ts", 'import type { Prisma } from "../client";\nexport let x: Prisma.JsonValue;'],
    ["apps/worker/src/scratch.ts", 'const m = await import("@switchboard/db/client");\nvoid m;'],
    [
      "apps/web/src/server/trpc/routers/scratch.ts",
      'import type { TemplateInput } from "../../services/catalogue.service";\nimport { ok } from "./shared.schema";\nexport let x: TemplateInput;\nvoid ok;',
    ],
  ])("%s passes with allowed imports", async (path, code) => {
    expect(await errors(path, code)).toEqual([]);
  });
});

describe("process.env", () => {
  const READ = "no-restricted-syntax";

  it.each([
    ["packages/core/src/scratch.ts", "export const port = process.env.PORT;"],
    ["packages/db/src/scratch.ts", 'export const url = process.env["DATABASE_URL"];'],
    ["apps/worker/src/scratch.ts", "export const all = { ...process.env };"],
    ["apps/gateway/src/scratch.ts", "export const dev = process.env.NODE_ENV !== 'production';"],
    ["apps/web/src/server/scratch.ts", "export const level = process.env.LOG_LEVEL;"],
    ["apps/web/src/server/scratch.ts", "const { env } = process;\nexport const level = env.LOG_LEVEL;"],
  ])("%s fails with `%s`", async (path, code) => {
    expect((await errors(path, code)).some((e) => e.startsWith(READ))).toBe(true);
  });

  it.each([
    ["apps/web/src/env.ts", "export const raw = process.env;"],
    ["apps/gateway/src/env.ts", "export const raw = process.env;"],
    ["apps/web/src/app/scratch.tsx", "export const dev = process.env.NODE_ENV === 'development';"],
    ["apps/web/test/scratch.test.ts", "export const child = { ...process.env, PORT: '0' };"],
  ])("%s may read it: `%s`", async (path, code) => {
    expect(await errors(path, code)).toEqual([]);
  });
});

describe("Prisma's error codes", () => {
  const RULE = "no-restricted-syntax";

  it.each([
    ["apps/web/src/server/services/scratch.ts", 'export const dup = (e: { code?: string }) => e.code === "P2002";'],
    ["apps/worker/src/scratch.ts", 'export const gone = (e: { code?: string }) => e.code === "P2003";'],
    ["apps/gateway/src/scratch.ts", 'export const codes = new Set(["P1001", "P2024"]);'],
  ])("%s fails with `%s`", async (path, code) => {
    expect((await errors(path, code)).some((e) => e.startsWith(RULE))).toBe(true);
  });

  it.each([
    ["packages/db/src/scratch.ts", 'export const dup = (e: { code?: string }) => e.code === "P2002";'],
    ["apps/web/src/scratch.ts", 'export const plan = "P20";'],
  ])("%s may: `%s`", async (path, code) => {
    expect(await errors(path, code)).toEqual([]);
  });
});

describe("restated status groups", () => {
  const GROUP = "no-restricted-syntax: Instance status groups live in @switchboard/core/status";

  it.each([
    ["apps/web/src/components/scratch.tsx", 'export const retrying = ["offline", "error"];'],
    ["apps/worker/src/scratch.ts", 'export const blocked = new Set(["requires_reauth", "awaiting_user_config"]);'],
    ["packages/db/src/queries/scratch.ts", 'export const where = { status: { in: ["online", "error"] } };'],
    ["apps/gateway/src/scratch.ts", 'export const down = (s: string) => s === "offline" || s === "error";'],
    ["apps/worker/src/scratch.ts", 'export const up = (s: string) => "online" !== s && s !== "restarting";'],
    ["apps/web/src/server/scratch.ts", 'export const x = (s: string) => s === "a" || s === "online" || s === "error";'],
  ])("%s fails with `%s`", async (path, code) => {
    expect((await errors(path, code)).some((e) => e.startsWith(GROUP))).toBe(true);
  });

  it.each([
    [
      "apps/web/src/components/scratch.tsx",
      'import { RETRYING_STATUSES } from "@switchboard/core/status";\nexport const retrying = RETRYING_STATUSES;',
    ],
    [
      "apps/worker/src/scratch.ts",
      'import { isRetrying } from "@switchboard/core/status";\nexport const down = (s: string) => isRetrying(s);',
    ],
    ["apps/gateway/src/scratch.ts", 'export const online = (s: string) => s === "online";'],
    ["apps/web/src/scratch.ts", 'export const levels = ["error", "warn"];'],
    ["packages/core/src/status/scratch.ts", 'export const RETRYING = ["offline", "error"] as const;'],
    ["apps/worker/test/scratch.test.ts", 'export const seen = ["connecting", "online"];'],
  ])("%s may: `%s`", async (path, code) => {
    expect(await errors(path, code)).toEqual([]);
  });

  it("knows the statuses core defines", async () => {
    const { INSTANCE_STATUSES } = await import("../../packages/core/src/status/statuses");
    const config = (await import(new URL("../eslint.config.js", import.meta.url).href)) as {
      INSTANCE_STATUS_NAMES: string[];
    };
    const { INSTANCE_STATUS_NAMES } = config;
    expect(INSTANCE_STATUS_NAMES).toEqual([...INSTANCE_STATUSES]);
  });
});
