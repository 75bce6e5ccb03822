import { spawn } from "node:child_process";
import path from "node:path";
import { freePort } from "@switchboard/testing/net";

/** Another gateway process serving the MCP route (./route-process.ts), on the test run's database and Redis prefix. */
export interface OtherRoute {
  port: number;
  pid: number;
  /** Everything it wrote so far. */
  output(): string;
  /** Resolves with its exit code and signal once it exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Its address, for `new URL(path, base)`. */
  base: string;
  /** Sends it a signal. */
  kill(signal: NodeJS.Signals): void;
  /** Ends the process and waits until it has exited. */
  stop(): Promise<void>;
}

export async function startOtherRoute(options: { env?: NodeJS.ProcessEnv } = {}): Promise<OtherRoute> {
  const port = await freePort();
  const gateway = path.resolve(import.meta.dirname, "../..");
  // Node itself (not the tsx launcher, which would stand between the process and a signal).
  const child = spawn(process.execPath, ["--import", "tsx", "test/support/route-process.ts"], {
    cwd: gateway,
    env: {
      ...process.env,
      ROUTE_PORT: String(port),
      MCP_ALLOWED_HOSTS: `${process.env.MCP_ALLOWED_HOSTS},127.0.0.1:${port}`,
      LOG_LEVEL: "warn",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the other route did not start: ${output}`)), 30_000);
    const read = (d: Buffer) => {
      output += String(d);
      if (!output.includes("route listening")) return;
      child.stdout.off("data", read);
      child.stderr.off("data", read);
      const keep = (d: Buffer) => void (output = (output + String(d)).slice(-50_000));
      child.stdout.on("data", keep);
      child.stderr.on("data", keep);
      clearTimeout(timer);
      resolve();
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the other route exited: ${output}`));
    });
  });
  return {
    port,
    pid: child.pid!,
    output: () => output,
    exited,
    base: `http://127.0.0.1:${port}`,
    kill: (signal) => void child.kill(signal),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
