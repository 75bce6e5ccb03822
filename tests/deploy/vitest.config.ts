import { defineConfig } from "vitest/config";

/** Renders deploy/kubernetes with kubectl and checks what it renders: no database, Redis or cluster needed. */
export default defineConfig({
  test: { include: ["test/**/*.test.ts"], testTimeout: 60_000 },
});
