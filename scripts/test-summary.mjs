// Reads a test log (vitest and Playwright output, possibly prefixed by turbo) and prints one closing line,
// `tests: N passed, N failed`, summed over every runner in the log.
import { readFileSync } from "node:fs";

// eslint-disable-next-line no-control-regex -- strips the ANSI colour codes (ESC [ ... m) of the runners' output
const text = readFileSync(process.argv[2], "utf8").replace(/\x1b\[[0-9;]*m/g, "");
let passed = 0;
let failed = 0;
let skipped = 0;
for (const line of text.split("\n")) {
  const vitest = line.match(/\bTests\s+(.*)$/);
  if (vitest && /\d+ (passed|failed)/.test(vitest[1])) {
    passed += Number(vitest[1].match(/(\d+) passed/)?.[1] ?? 0);
    failed += Number(vitest[1].match(/(\d+) failed/)?.[1] ?? 0);
    skipped += Number(vitest[1].match(/(\d+) skipped/)?.[1] ?? 0);
    continue;
  }
  const pw = line.match(/^(?:\S+:\s+)?\s*(\d+) (passed|failed|skipped|flaky)(?: \(|$)/);
  if (pw) {
    const n = Number(pw[1]);
    if (pw[2] === "passed" || pw[2] === "flaky") passed += n;
    else if (pw[2] === "failed") failed += n;
    else skipped += n;
  }
}
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
