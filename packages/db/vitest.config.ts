import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["./src/testing/global-setup.ts"],
    setupFiles: ["./src/testing/setup-env.ts"],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
