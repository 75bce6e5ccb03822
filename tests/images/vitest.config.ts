import { defineConfig } from "vitest/config";

/**
 * The container images (Containerfile, built by scripts/images/build.sh before this runs) smoke-run against this
 * machine's PostgreSQL and Redis with Podman: migrations, console, a sandboxed stdio server, an MCP call.
 */
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
