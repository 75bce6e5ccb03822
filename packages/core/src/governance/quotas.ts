/**
 * Quotas on tool calls: which counters a call takes, what a refusal says. The one home of the rule; the gateway
 * counts (Redis, every process), the database stores a team's limits, and both ask here.
 *
 * A team has no limit until an admin sets one: nothing changes for an existing team. A limit counts calls to
 * any tool (`max`) and, separately and more strictly, calls to tools that are not read-only (`writeMax`: a tool
 * whose annotations lack `readOnlyHint: true`); a write call takes both counters. Counts are keyed on who is
 * counted (member, token, installation or tool), never on the MCP session, so a new session does not reset them.
 */

/** Window lengths in seconds; a window is fixed (it starts with its first call) and the count starts over after it. */
export const QUOTA_WINDOWS = { minute: 60, hour: 3600, day: 86_400 } as const;
export type QuotaWindow = keyof typeof QUOTA_WINDOWS;
export const QUOTA_WINDOW_NAMES = Object.keys(QUOTA_WINDOWS) as QuotaWindow[];

/** What one count is kept for: each member of the team, each token, each installation, or each tool. */
export const QUOTA_SUBJECTS = ["member", "token", "installation", "tool"] as const;
export type QuotaSubject = (typeof QUOTA_SUBJECTS)[number];

/** Which calls a counter counts: every tool call, or those to tools that are not read-only. */
export type QuotaCounts = "calls" | "writes";

/** The highest limit an admin may set, so a number typed with a digit too many still means something. */
export const QUOTA_MAX = 10_000_000;

/** One limit a team set. */
export interface ToolQuota {
  id: string;
  /** The installation it covers; null: every installation of the team. */
  installationId: string | null;
  /** The upstream tool name it covers (with an installation only); null: every tool. */
  toolName: string | null;
  subject: QuotaSubject;
  window: QuotaWindow;
  /** Calls to any tool per window. */
  max: number;
  /** Calls to tools that are not read-only per window; null: the default, {@link defaultWriteMax}. */
  writeMax: number | null;
}

/** The stricter default for tools that are not read-only: a fifth of the limit on all calls, at least one. */
export function defaultWriteMax(max: number): number {
  return Math.max(1, Math.floor(max / 5));
}

/** A tool is read-only only when its server says so (`readOnlyHint: true`); anything else counts as a write. */
export function isReadOnlyTool(annotations: { readOnlyHint?: boolean } | undefined): boolean {
  return annotations?.readOnlyHint === true;
}

/** A tools/call as the quota rule sees it: who calls what. */
export interface QuotaCall {
  teamId: string;
  userId: string;
  tokenId: string;
  installationId: string;
  /** Upstream name of the tool. */
  tool: string;
  readOnly: boolean;
}

/** One count a call takes: the limit, its window and the identity it is kept for. */
export interface QuotaCounter {
  quotaId: string;
  subject: QuotaSubject;
  window: QuotaWindow;
  windowSeconds: number;
  counts: QuotaCounts;
  /** Calls allowed per window. */
  limit: number;
  /** Who is counted (ids, in order); the Redis key is spelled from these (contracts `redisKeys.toolQuota`). */
  identity: readonly string[];
}

function identityOf(subject: QuotaSubject, call: QuotaCall): string[] {
  switch (subject) {
    case "member":
      return [call.teamId, call.userId];
    case "token":
      return [call.tokenId];
    case "installation":
      return [call.installationId];
    case "tool":
      return [call.installationId, call.tool];
  }
}

/** Whether a limit covers a call: its installation (or every one) and its tool (or every one). */
function covers(quota: ToolQuota, call: QuotaCall): boolean {
  if (quota.installationId !== null && quota.installationId !== call.installationId) return false;
  return quota.toolName === null || quota.toolName === call.tool;
}

/**
 * The counters a call takes, in the order the limits were given: for each limit covering it, the count of all
 * calls and, for a tool that is not read-only, the count of writes. Empty when none applies.
 */
export function quotaCounters(quotas: readonly ToolQuota[], call: QuotaCall): QuotaCounter[] {
  const counters: QuotaCounter[] = [];
  for (const quota of quotas) {
    if (!covers(quota, call)) continue;
    const base = {
      quotaId: quota.id,
      subject: quota.subject,
      window: quota.window,
      windowSeconds: QUOTA_WINDOWS[quota.window],
      identity: identityOf(quota.subject, call),
    };
    counters.push({ ...base, counts: "calls", limit: quota.max });
    if (!call.readOnly)
      counters.push({ ...base, counts: "writes", limit: quota.writeMax ?? defaultWriteMax(quota.max) });
  }
  return counters;
}

/** A call refused by a counter: which limit, and when its window ends. */
export interface QuotaRefusal {
  subject: QuotaSubject;
  window: QuotaWindow;
  counts: QuotaCounts;
  limit: number;
  /** When the window ends (ISO 8601): the next call may pass then. */
  resetAt: string;
}

/** JSON-RPC error code of a refused call: implementation-defined (-32000 to -32099), as the session rate's. */
export const QUOTA_EXCEEDED_CODE = -32029;

const WHOSE: Record<QuotaSubject, (tool: string) => string> = {
  member: () => "for you in this team",
  token: () => "for this token",
  installation: () => "for this server",
  tool: (tool) => `for ${tool}`,
};

/** How every refusal's sentence starts, so the request log's blocked rows can be told apart by it. */
export const QUOTA_REFUSAL_PREFIX = "Quota reached: ";

/** The one sentence a refused client reads: which limit, and when it resets. */
export function quotaRefusalMessage(refusal: QuotaRefusal, tool: string, now: number): string {
  const what = refusal.counts === "writes" ? "calls to tools that are not read-only" : "tool calls";
  const seconds = Math.max(1, Math.ceil((Date.parse(refusal.resetAt) - now) / 1000));
  return `${QUOTA_REFUSAL_PREFIX}at most ${refusal.limit} ${what} per ${refusal.window} ${WHOSE[refusal.subject](tool)}; it resets in ${seconds} s (${refusal.resetAt}).`;
}

/** The error's `data`: the limit, its window and when it resets, for clients that back off on their own. */
export function quotaRefusalData(refusal: QuotaRefusal): Record<string, unknown> {
  return { ...refusal, windowSeconds: QUOTA_WINDOWS[refusal.window] };
}

/** What is wrong with a limit an admin sets, as sentences; empty when it may be stored. */
export function toolQuotaProblems(quota: Omit<ToolQuota, "id">): string[] {
  const problems: string[] = [];
  const count = (n: number) => Number.isInteger(n) && n >= 1 && n <= QUOTA_MAX;
  if (!count(quota.max)) problems.push(`A limit is a whole number of calls from 1 to ${QUOTA_MAX}.`);
  if (quota.writeMax !== null && !count(quota.writeMax))
    problems.push(`A limit on writes is a whole number of calls from 1 to ${QUOTA_MAX}.`);
  if (quota.writeMax !== null && quota.writeMax > quota.max)
    problems.push("The limit on tools that are not read-only cannot be above the limit on all calls.");
  if (quota.toolName !== null && quota.installationId === null) problems.push("A limit on one tool names its server.");
  return problems;
}

/** A member as their remaining quota sees them: their team, their live tokens, the team's installations. */
export interface QuotaMember {
  teamId: string;
  userId: string;
  tokenIds: readonly string[];
  installationIds: readonly string[];
}

/**
 * The counters that apply to a member, for My servers: each limit once for the member, once per token of
 * theirs, once per installation it covers, and once for the tool it names (a tool limit without a tool name
 * counts each tool separately and is left out: its tools are not known here). Identities are spelled by the
 * same rule as a call's ({@link quotaCounters}), so the console reads the very counts the gateway takes.
 */
export function memberQuotaCounters(
  quotas: readonly ToolQuota[],
  member: QuotaMember,
): Array<QuotaCounter & { tokenId: string | null; installationId: string | null; toolName: string | null }> {
  const out: Array<QuotaCounter & { tokenId: string | null; installationId: string | null; toolName: string | null }> =
    [];
  for (const quota of quotas) {
    const installations = quota.installationId ? [quota.installationId] : member.installationIds;
    const calls: Array<Pick<QuotaCall, "tokenId" | "installationId" | "tool">> =
      quota.subject === "member"
        ? [{ tokenId: "", installationId: quota.installationId ?? "", tool: quota.toolName ?? "" }]
        : quota.subject === "token"
          ? member.tokenIds.map((tokenId) => ({
              tokenId,
              installationId: quota.installationId ?? "",
              tool: quota.toolName ?? "",
            }))
          : quota.subject === "installation"
            ? installations.map((installationId) => ({ tokenId: "", installationId, tool: quota.toolName ?? "" }))
            : quota.installationId && quota.toolName
              ? [{ tokenId: "", installationId: quota.installationId, tool: quota.toolName }]
              : [];
    for (const c of calls) {
      const base = {
        quotaId: quota.id,
        subject: quota.subject,
        window: quota.window,
        windowSeconds: QUOTA_WINDOWS[quota.window],
        identity: identityOf(quota.subject, { ...c, teamId: member.teamId, userId: member.userId, readOnly: true }),
        tokenId: quota.subject === "token" ? c.tokenId : null,
        installationId:
          quota.subject === "installation" || quota.subject === "tool" ? c.installationId : quota.installationId,
        toolName: quota.toolName,
      };
      out.push({ ...base, counts: "calls", limit: quota.max });
      out.push({ ...base, counts: "writes", limit: quota.writeMax ?? defaultWriteMax(quota.max) });
    }
  }
  return out;
}
