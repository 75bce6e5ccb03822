import path from "node:path";
import pino from "pino";
import type { StdioLaunch } from "@switchboard/core/stdio";
import { StdioSandbox } from "../../src/sandbox";

/** The worker tests' stdio MCP servers (readable inside the tests' sandboxes). */
export const FIXTURES_DIR = path.resolve(import.meta.dirname, "../fixtures");

/** A small real MCP server over stdio (two tools, never crashes on its own): what start/stop cycles run. */
export const CYCLE_SERVER: StdioLaunch = {
  transport: "stdio",
  command: process.execPath,
  args: [path.join(FIXTURES_DIR, "crashy-server.mjs")],
  env: {},
};

/** The sandbox start/stop cycles run in: as the worker starts it (probes included), the fixtures readable. */
export function startCycleSandbox(dataDir: string, pasta?: string): Promise<StdioSandbox> {
  return StdioSandbox.start({
    mode: "on",
    dataDir,
    readOnlyPaths: [FIXTURES_DIR],
    logger: pino({ level: "silent" }),
    ...(pasta ? { tools: { pasta } } : {}),
  });
}
