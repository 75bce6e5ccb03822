/**
 * MCP protocol revisions, as the gateway, the worker and the console tell them apart. Pure: safe in the browser.
 * 2026-07-28 is stateless (no `initialize`, no session; version and client capabilities travel in every request's
 * `_meta`); earlier revisions open a session with `initialize`.
 */
export const REVISION_2026 = "2026-07-28";

/** Whether a revision is the stateless one (2026-07-28) or a later one; dates compare as strings. */
export function isRevision2026(version: string | undefined | null): boolean {
  return typeof version === "string" && version >= REVISION_2026;
}

/**
 * The request field a 2026-07-28 `Mcp-Name` header mirrors, for the methods that carry one: clients and the gateway
 * set the header from it, and a server checks that the two agree.
 */
export const MCP_NAME_FIELD: Readonly<Record<string, "name" | "uri" | "taskId">> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

/** One sentence for people about what a revision means for an upstream. */
export function revisionDescription(version: string): string {
  return isRevision2026(version)
    ? "Stateless revision: no session, every request carries the protocol version."
    : "Session-based revision: the connection opens a session with initialize.";
}
