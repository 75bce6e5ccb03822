export { createTestDatabase, migrate, adminUrl, type TestDatabase } from "./database";
export * from "./factories";
