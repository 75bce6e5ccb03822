/** One line of the usage table (and of its CSV): a day's calls of one member, server and tool, or a sum of them. */
export interface UsageLine {
  day: string;
  userId: string;
  member: string;
  installationId: string;
  server: string;
  method: string;
  target: string;
  calls: number;
  errors: number;
  resultBytes: number;
  resultTokens: number;
}

export const USAGE_GROUPS = [
  { id: "detail", label: "member, server and tool" },
  { id: "member", label: "member" },
  { id: "server", label: "server" },
  { id: "tool", label: "tool" },
] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number]["id"];

const ALL = "all";

/** Sums a day's lines per member, per server or per tool; the other columns read "all". */
export function groupUsage(rows: readonly UsageLine[], by: UsageGroup): UsageLine[] {
  if (by === "detail") return [...rows];
  const groups = new Map<string, UsageLine>();
  for (const r of rows) {
    const keep = {
      userId: by === "member" ? r.userId : ALL,
      member: by === "member" ? r.member : ALL,
      installationId: by === "server" || by === "tool" ? r.installationId : ALL,
      server: by === "server" || by === "tool" ? r.server : ALL,
      method: by === "tool" ? r.method : ALL,
      target: by === "tool" ? r.target : ALL,
    };
    const key = JSON.stringify([r.day, keep.userId, keep.installationId, keep.method, keep.target]);
    const line = groups.get(key);
    if (line) {
      line.calls += r.calls;
      line.errors += r.errors;
      line.resultBytes += r.resultBytes;
      line.resultTokens += r.resultTokens;
    } else {
      groups.set(key, {
        day: r.day,
        ...keep,
        calls: r.calls,
        errors: r.errors,
        resultBytes: r.resultBytes,
        resultTokens: r.resultTokens,
      });
    }
  }
  return [...groups.values()];
}
