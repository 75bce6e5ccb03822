/**
 * `npm run bench`: every benchmark of the project, each printing its figures and ratios against a baseline
 * measured in the same run. Nothing here asserts a time: the numbers are for people to read and compare.
 * BENCH_ONLY=proxy|tracing|quotas|metrics|worker runs one of them.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const only = process.env.BENCH_ONLY;
const root = path.resolve(import.meta.dirname, "../..");

if (!only || only === "proxy") {
  const { run } = await import("./proxy");
  await run();
}

if (!only || only === "tracing") {
  const { run } = await import("./tracing");
  await run();
}

if (!only || only === "quotas") {
  const { run } = await import("./quotas");
  await run();
}

if (!only || only === "metrics") {
  const { run } = await import("./metrics");
  await run();
}

const workerBench = path.join(root, "apps/worker/bench/health-scale.ts");
if ((!only || only === "worker") && existsSync(workerBench)) {
  const { run } = (await import(pathToFileURL(workerBench).href)) as { run: () => Promise<void> };
  await run();
}
process.exit(0);
