import path from "node:path";
import { defineConfig } from "vitest/config";
import { servicesTest } from "../../packages/testing/src/vitest";

/**
 * Tests that drive the console and the gateway together in one process: a change made through the console's API
 * (tRPC caller, Better Auth, its OAuth callback) and what the gateway's route or caches then do.
 */
export default defineConfig({
  resolve: {
    alias: {
      // The console's modules import each other with its `~` alias.
      "~": path.resolve(import.meta.dirname, "../../apps/web/src"),
      // `server-only` throws outside React Server Components; the console's modules are called directly here.
      "server-only": path.resolve(import.meta.dirname, "../../apps/web/test/support/empty.ts"),
    },
  },
  test: servicesTest,
});
