// Runs the given test files of a workspace a second time against a Redis Cluster: `.ci/run` starts a three-master
// cluster and sets TEST_REDIS_CLUSTER_URL (a redis+cluster:// URL of one of its nodes). Without it (a developer's
// machine without a cluster) it says so and does nothing. Usage, from a workspace's test script:
//   node ../../scripts/test-on-redis-cluster.mjs test/a.test.ts test/b.test.ts
import { spawnSync } from "node:child_process";

const url = process.env.TEST_REDIS_CLUSTER_URL;
const files = process.argv.slice(2);
if (!url) {
  console.log(`Redis Cluster run of ${files.length} file(s) skipped (TEST_REDIS_CLUSTER_URL is not set)`);
  process.exit(0);
}
console.log(`Redis Cluster run (${url}): ${files.join(" ")}`);
const result = spawnSync("npx", ["vitest", "run", ...files], {
  stdio: "inherit",
  // The apps read REDIS_URL; the worker's test harness reads TEST_REDIS_URL.
  env: { ...process.env, REDIS_URL: url, TEST_REDIS_URL: url },
});
process.exit(result.status ?? 1);
