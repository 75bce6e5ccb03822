import type { TestProject } from "vitest/node";
import { createTestDatabase } from "./database";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

/** Vitest globalSetup: one migrated database per test run, dropped afterwards. */
export default async function setup(project: TestProject) {
  const db = await createTestDatabase(project.name || "vitest");
  project.provide("databaseUrl", db.url);
  return async () => {
    await db.drop();
  };
}
