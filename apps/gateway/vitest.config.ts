import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: {
      // Only for the console's test support (apps/web/test/support), which sets up teams and tokens through the
      // console's tRPC caller and imports with the console's `~` alias. Gateway source never uses `~`.
      "~": path.resolve(import.meta.dirname, "../web/src"),
      // `server-only` throws outside React Server Components; the console's modules are called directly here.
      "server-only": path.resolve(import.meta.dirname, "../web/test/support/empty.ts"),
    },
  },
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["../../packages/db/src/testing/global-setup.ts"],
    setupFiles: [
      "../../packages/db/src/testing/setup-env.ts",
      "../../packages/testing/src/env.ts",
      "../../packages/testing/src/teardown.ts",
    ],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
