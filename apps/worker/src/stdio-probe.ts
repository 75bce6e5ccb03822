import { randomUUID } from "node:crypto";
import { Redactor, type ResolvedLaunch } from "@switchboard/core/config";
import { checkStdioCommand } from "@switchboard/core/deployment";
import { failedConnectionTest, testConnection, type ConnectionTestResult } from "@switchboard/core/probe";
import type { DbTx } from "@switchboard/db/client";
import { getStdioPolicy } from "@switchboard/db/queries/deployment";
import type { StdioSandbox } from "./sandbox";

const refused = (message: string) => failedConnectionTest("stdio", message);

/**
 * Runs a local command once the way an instance would run (the deployment's rules, the sandbox with the
 * default limits and no network, only its configured environment), lists its tools, and stops it. Its
 * throwaway sandbox home is deleted afterwards. What it says is redacted of the values it was given.
 */
export async function probeStdioOnce(input: {
  db: DbTx;
  sandbox?: StdioSandbox;
  teamId: string;
  launch: ResolvedLaunch;
  envKeys: string[];
}): Promise<ConnectionTestResult> {
  const { launch } = input;
  if (launch.transport !== "stdio") return refused("Only local commands are tested here.");
  const policy = await getStdioPolicy(input.db, input.teamId);
  const decision = checkStdioCommand({
    command: launch.command,
    args: launch.args,
    envKeys: input.envKeys,
    allowList: policy.allowList,
    teamStdioAllowed: policy.teamStdioAllowed,
  });
  if (!decision.allowed) return refused(`Not started: ${decision.reason}`);
  const redactor = Redactor.of(Object.values(launch.env));
  const id = `connection-test-${randomUUID()}`;
  try {
    const wrapped = input.sandbox?.enabled ? input.sandbox.wrap(id, launch, {}) : launch;
    const result = await testConnection(
      { ...wrapped, transport: "stdio" },
      { spawn: input.sandbox?.enabled ? { inheritEnv: [] } : {} },
    );
    return {
      ...result,
      message: redactor.text(result.message),
      detail: result.detail === null ? null : redactor.text(result.detail),
    };
  } catch (err) {
    return refused(redactor.text(err instanceof Error ? err.message : String(err)));
  } finally {
    input.sandbox?.removeInstance(id);
  }
}
