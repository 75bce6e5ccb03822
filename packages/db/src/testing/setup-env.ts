import { inject } from "vitest";

// Runs in every test worker before the tests: point the process-wide client at this run's database.
process.env.DATABASE_URL = inject("databaseUrl");
process.env.SWITCHBOARD_ENCRYPTION_KEY ??= Buffer.alloc(32, 7).toString("base64");
