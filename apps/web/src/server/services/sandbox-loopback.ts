import "server-only";
import {
  allowedLoopbackPorts,
  mergeReserved,
  portOfUrl,
  reservedLoopbackPorts,
  type ReservedPort,
} from "@switchboard/core/sandbox";
import type { DbTx } from "@switchboard/db/client";
import { getSandboxLoopbackPorts } from "@switchboard/db/queries/deployment";
import { env } from "@switchboard/runtime/env";
import { readSandboxStatus } from "./sandbox-status";

/** Which host loopback ports sandboxes may be given on this deployment, as the console can know it. */
export interface LoopbackRule {
  /** What the operator allows (the worker's STDIO_SANDBOX_LOOPBACK_PORTS, as it reported them). */
  operatorPorts: number[];
  /** What the deployment owners allow (the deployment's settings). */
  deploymentPorts: number[];
  /** What an installation's admin may pick from: both lists, less the reserved ports. */
  allowed: number[];
  /** Never granted: this process's view of Switchboard's own ports and the worker's (its bridge among them). */
  reserved: ReservedPort[];
}

/** Switchboard's own ports as the console's environment names them (the worker adds its own through its report). */
function ownReservedPorts(): ReservedPort[] {
  const e = env();
  return reservedLoopbackPorts({
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    bridgePorts: [portOfUrl(e.BRIDGE_URL, 80)],
    consolePorts: [e.PORT, e.NEXT_INTERNAL_PORT],
  });
}

/** `report`: the worker's sandbox report when the caller read it already (else it is read here). */
export async function loopbackRule(
  db: DbTx,
  report?: Awaited<ReturnType<typeof readSandboxStatus>>,
): Promise<LoopbackRule> {
  const [deploymentPorts, worker] = await Promise.all([
    getSandboxLoopbackPorts(db),
    report === undefined ? readSandboxStatus() : report,
  ]);
  const reserved = mergeReserved(ownReservedPorts(), worker?.loopback?.reserved ?? []);
  const operatorPorts = allowedLoopbackPorts([worker?.loopback?.operatorPorts ?? []], reserved);
  return {
    operatorPorts,
    deploymentPorts,
    allowed: allowedLoopbackPorts([operatorPorts, deploymentPorts], reserved),
    reserved,
  };
}
