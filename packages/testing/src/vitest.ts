import path from "node:path";
import type { TestUserConfig } from "vitest/config";

const here = import.meta.dirname;

/**
 * The test settings of every workspace whose tests talk to the real PostgreSQL and Redis with the console's
 * environment (the console, the gateway, tests/integration): a database per run (packages/db's global setup),
 * the test environment, this run's Redis namespace, and the shared clients closed after each file.
 */
export const servicesTest = {
  include: ["test/**/*.test.ts"],
  globalSetup: [path.resolve(here, "../../db/src/testing/global-setup.ts")],
  setupFiles: [
    path.resolve(here, "../../db/src/testing/setup-env.ts"),
    path.resolve(here, "env.ts"),
    path.resolve(here, "teardown.ts"),
  ],
  testTimeout: 20_000,
  hookTimeout: 60_000,
} satisfies TestUserConfig;
