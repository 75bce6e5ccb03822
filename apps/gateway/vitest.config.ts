import { defineConfig } from "vitest/config";
import { servicesTest } from "../../packages/testing/src/vitest";

export default defineConfig({
  test: servicesTest,
});
