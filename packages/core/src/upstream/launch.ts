import type { ResolvedLaunch } from "../config";

/**
 * How to reach one instance's server, after the template, team and member tiers have been merged by
 * `resolveLaunch` in ../config. Core only consumes this shape; query parameters are already in `url`.
 */
export type { ResolvedLaunch };

export type HttpLaunch = Extract<ResolvedLaunch, { transport: "sse" | "streamable_http" }>;
