import path from "node:path";
import { defineConfig } from "vitest/config";
import { servicesTest } from "../../packages/testing/src/vitest";

export default defineConfig({
  resolve: {
    alias: {
      "~": path.resolve(import.meta.dirname, "src"),
      // `server-only` throws outside React Server Components; tests call server modules directly.
      "server-only": path.resolve(import.meta.dirname, "test/support/empty.ts"),
    },
  },
  test: servicesTest,
});
