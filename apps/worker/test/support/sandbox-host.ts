/**
 * A stand-in for the worker's stdio side, as a process the stdio-cycles drill can SIGKILL at any moment:
 * starts the sandbox as the worker does (its start-up probes, the outbound one through pasta included), prints
 * "ready", then starts one sandboxed server (outbound when the host allows it) through the supervisor and prints
 * "running". Arguments: the sandboxes' data directory, and a pasta to use instead of the host's (optional).
 *
 *   node --import tsx test/support/sandbox-host.ts <dataDir> [pasta]
 */
import { StdioSupervisor } from "@switchboard/core/stdio";
import { CYCLE_SERVER, startCycleSandbox } from "./stdio-fixtures";

const dataDir = process.argv[2]!;
const sandbox = await startCycleSandbox(dataDir, process.argv[3]);
process.stdout.write(`ready ${JSON.stringify(sandbox.status)}\n`);
const supervisor = new StdioSupervisor({
  resolveLaunch: async (id) => sandbox.wrap(id, CYCLE_SERVER, { outbound: sandbox.status.outbound }),
});
await supervisor.start("host-kill");
process.stdout.write("running\n");
// Keeps running until killed.
setInterval(() => {}, 60_000);
