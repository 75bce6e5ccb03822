import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: {
      "~": path.resolve(import.meta.dirname, "src"),
      // `server-only` throws outside React Server Components; tests call server modules directly.
      "server-only": path.resolve(import.meta.dirname, "test/support/empty.ts"),
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
