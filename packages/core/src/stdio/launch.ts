import type { ResolvedLaunch } from "../config";

/** The stdio half of a resolved launch; `cwd` is ours (tests and local servers), config never sets it. */
export type StdioLaunch = Extract<ResolvedLaunch, { transport: "stdio" }> & { cwd?: string };
