import { afterAll } from "vitest";

// Every test file (console and gateway): close what the server modules opened lazily (job producer, Redis,
// database pool).
afterAll(async () => {
  const [{ closeJobs }, { redis, subscriberConnection }, { disconnectDb }] = await Promise.all([
    import("@switchboard/runtime/jobs"),
    import("@switchboard/runtime/redis"),
    import("@switchboard/db/client"),
  ]);
  await closeJobs().catch(() => undefined);
  redis().disconnect();
  subscriberConnection().disconnect();
  await disconnectDb();
});
