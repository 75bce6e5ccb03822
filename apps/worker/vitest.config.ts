import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["../../packages/db/src/testing/global-setup.ts"],
    setupFiles: ["../../packages/db/src/testing/setup-env.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Files share one database but never a queue prefix; keep CPU contention low on small machines.
    fileParallelism: false,
  },
});
