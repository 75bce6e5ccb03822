import { defineConfig } from "vitest/config";

export default defineConfig({
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
