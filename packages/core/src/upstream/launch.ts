import type { StdioLaunch } from "../stdio/launch";

/**
 * How to reach one instance's server, after the template, team and member tiers have been merged by
 * `resolveLaunch` in ../config. Core only consumes this shape; query parameters are already in `url`.
 */
export type ResolvedLaunch = StdioLaunch | HttpLaunch;

export interface HttpLaunch {
  transport: "sse" | "streamable_http";
  url: string;
  headers: Record<string, string>;
}
