import path from "node:path";
import type { StdioLaunch } from "@switchboard/core/stdio";

/** The worker tests' stdio MCP servers (readable inside the tests' sandboxes). */
export const FIXTURES_DIR = path.resolve(import.meta.dirname, "../fixtures");

/** A small real MCP server over stdio (two tools, never crashes on its own): what start/stop cycles run. */
export const CYCLE_SERVER: StdioLaunch = {
  transport: "stdio",
  command: process.execPath,
  args: [path.join(FIXTURES_DIR, "crashy-server.mjs")],
  env: {},
};
