// A gateway stand-in for console-process.test.ts: starts the tiny console as its child, prints the child's pid,
// and waits to be killed.
import path from "node:path";
import { startConsole } from "../../src/console/next-process";

const console_ = await startConsole({
  dir: import.meta.dirname,
  dev: false,
  command: () => ({ file: process.execPath, args: [path.join(import.meta.dirname, "tiny-console.mjs")] }),
});
process.stdout.write(`${console_.pid}\n`);
setInterval(() => {}, 60_000);
