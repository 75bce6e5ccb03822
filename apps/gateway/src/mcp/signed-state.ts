import { createHmac, timingSafeEqual } from "node:crypto";
import type { Request2026 } from "@switchboard/core/proxy";
import { env } from "@switchboard/runtime/env";
import type { MemberContext } from "./member-proxy";

/**
 * What a 2026-07-28 client carries from one stateless request to the next, signed by the gateway so that it
 * cannot be forged or moved to another member: the `requestState` of a call waiting for the client's input, and
 * the id a task is polled by. Any gateway process can check one; none keeps a copy.
 */

/** `payload.mac`, the payload base64url JSON, the MAC over it for one purpose (a state is never a task id). */
function seal(purpose: string, value: unknown): string {
  const payload = Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${payload}.${mac(purpose, payload)}`;
}

function mac(purpose: string, payload: string): string {
  return createHmac("sha256", env().BETTER_AUTH_SECRET).update(`${purpose}\n${payload}`).digest("base64url");
}

/** What a sealed value holds, when it was sealed here for this purpose (its signature checked in constant time). */
function unseal(purpose: string, sealed: string): Record<string, unknown> | undefined {
  const [payload, signature, ...rest] = sealed.split(".");
  const expected = payload ? Buffer.from(mac(purpose, payload)) : undefined;
  const given = Buffer.from(signature ?? "");
  if (rest.length > 0 || !expected || expected.length !== given.length || !timingSafeEqual(expected, given))
    return undefined;
  try {
    const decoded: unknown = JSON.parse(Buffer.from(payload!, "base64url").toString("utf8"));
    return typeof decoded === "object" && decoded !== null ? (decoded as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const REQUEST_STATE = "mcp-request-state";
const TASK_ID = "mcp-task-id";

/** How long a `requestState` is accepted: as long as the upstream waits for an answer to what it asked. */
export function stateTtlMs(): number {
  return env().MCP_CLIENT_REQUEST_TIMEOUT_MS;
}

/** What a `requestState` is issued for: a retry must come from the same token, for the same request. */
export function bindingOf(member: MemberContext, request: Request2026["message"]): string {
  const params = request.params ?? {};
  const name = typeof params.name === "string" ? params.name : typeof params.uri === "string" ? params.uri : "";
  return JSON.stringify([
    member.tokenId,
    member.userId,
    member.teamId,
    member.scope,
    member.toolset ?? null,
    request.method,
    name,
  ]);
}

/**
 * What a `requestState` of ours continues: a call held for the client's input (`h`, a 2025 upstream asked) by a
 * gateway process (`p`), or a 2026 upstream's own `input_required`, whose `requestState` (`u`, if any) goes back to it.
 */
export type StateOf = { holdId: string; processId: string } | { upstream: string | undefined };

/** A `requestState` for what the retry continues, signed so that it cannot be forged, moved to another member or kept. */
export function signState(of: StateOf, binding: string): string {
  const continues = "holdId" in of ? { h: of.holdId, p: of.processId } : { u: of.upstream ?? null };
  return seal(REQUEST_STATE, { ...continues, b: binding, e: Date.now() + stateTtlMs() });
}

/** What a `requestState` continues, when it is ours, unexpired and presented for what it was issued for. */
export function verifyState(state: string, binding: string): StateOf | { refused: string } {
  const decoded = unseal(REQUEST_STATE, state);
  if (!decoded) return { refused: "requestState was not issued by this server" };
  if (typeof decoded.e !== "number" || decoded.e < Date.now()) return { refused: "requestState has expired" };
  if (decoded.b !== binding) return { refused: "requestState was issued for another request or client" };
  if ("u" in decoded) return { upstream: typeof decoded.u === "string" ? decoded.u : undefined };
  return { holdId: String(decoded.h), processId: String(decoded.p) };
}

/**
 * The id a 2026 client polls a task by: the owning instance and the upstream's own id, signed and bound to the
 * member, so that `tasks/get|update|cancel` reach the right upstream from any gateway process (nothing is kept
 * here) and no other member can reach the task. It lives as long as the upstream keeps the task.
 */
export function wrapTaskId(instanceId: string, taskId: string, member: string): string {
  return seal(TASK_ID, { i: instanceId, t: taskId, m: member });
}

/** The owning instance and the upstream's task id, when a task id is ours and the member's. */
export function unwrapTaskId(taskId: string, member: string): { instanceId: string; taskId: string } | undefined {
  const decoded = unseal(TASK_ID, taskId);
  if (decoded?.m !== member || typeof decoded.i !== "string" || typeof decoded.t !== "string") return undefined;
  return { instanceId: decoded.i, taskId: decoded.t };
}

/** Who a task belongs to: the member on this path (token, team, scope, toolset). */
export function taskOwner(member: MemberContext): string {
  return JSON.stringify([member.tokenId, member.userId, member.teamId, member.scope, member.toolset ?? null]);
}
