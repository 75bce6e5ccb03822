import { spawn } from "node:child_process";
import path from "node:path";
import { freePort } from "@switchboard/testing/net";

/** Another web process serving the MCP route (./route-process.ts), on the test run's database and Redis prefix. */
export interface OtherRoute {
  port: number;
  /** Its address, for `new URL(path, base)`. */
  base: string;
  /** Ends the process and waits until it has exited. */
  stop(): Promise<void>;
}

export async function startOtherRoute(): Promise<OtherRoute> {
  const port = await freePort();
  const gateway = path.resolve(import.meta.dirname, "../..");
  const child = spawn(path.resolve(gateway, "../../node_modules/.bin/tsx"), ["test/support/route-process.ts"], {
    cwd: gateway,
    env: {
      ...process.env,
      ROUTE_PORT: String(port),
      MCP_ALLOWED_HOSTS: `${process.env.MCP_ALLOWED_HOSTS},127.0.0.1:${port}`,
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the other route did not start: ${output}`)), 30_000);
    const read = (d: Buffer) => {
      output += String(d);
      if (!output.includes("route listening")) return;
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
    base: `http://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
