/**
 * `npm run bench`: every benchmark of the project, each printing its figures and ratios against a baseline
 * measured in the same run. Nothing here asserts a time: the numbers are for people to read and compare.
 * BENCH_ONLY=proxy|sessions|stdio|tracing|quotas|policies|guardrails|metrics|worker runs one of them (or several, comma-separated).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

const BENCHES = ["proxy", "sessions", "stdio", "tracing", "quotas", "policies", "guardrails", "metrics", "worker"];
// One name or several, comma-separated; a name that is none of them is refused rather than running nothing.
const only = process.env.BENCH_ONLY?.split(",").map((s) => s.trim());
const unknown = only?.filter((name) => !BENCHES.includes(name)) ?? [];
if (unknown.length > 0) {
  console.error(`BENCH_ONLY names no bench: ${unknown.join(", ")} (the benches: ${BENCHES.join(", ")})`);
  process.exit(2);
}
const runs = (name: string) => !only || only.includes(name);
const root = path.resolve(import.meta.dirname, "../..");

if (runs("proxy")) {
  const { run } = await import("./proxy");
  await run();
}

if (runs("sessions")) {
  const { run } = await import("./sessions");
  await run();
}

if (runs("stdio")) {
  const { run } = await import("./stdio");
  await run();
}

if (runs("tracing")) {
  const { run } = await import("./tracing");
  await run();
}

if (runs("quotas")) {
  const { run } = await import("./quotas");
  await run();
}

if (runs("policies")) {
  const { run } = await import("./policies");
  await run();
}

if (runs("guardrails")) {
  const { run } = await import("./guardrails");
  await run();
}

if (runs("metrics")) {
  const { run } = await import("./metrics");
  await run();
}

const workerBench = path.join(root, "apps/worker/bench/health-scale.ts");
if (runs("worker") && existsSync(workerBench)) {
  const { bundled } = await import("./stage");
  // The worker as it ships (bundled like dist/main.js), in a process of its own: its RSS is the worker's alone.
  const bench = bundled(workerBench, path.join(root, "apps/worker/bench/dist/health-scale.js"), [
    path.join(root, "apps/worker/bench/cheap-upstream.mjs"),
  ]);
  const code = await new Promise<number | null>((resolve) =>
    spawn(process.execPath, bench, { cwd: path.join(root, "apps/worker"), stdio: "inherit" }).on("exit", resolve),
  );
  if (code !== 0) process.exit(code ?? 1);
}
process.exit(0);
