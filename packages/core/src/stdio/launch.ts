/** The stdio half of a resolved launch (see `ResolvedLaunch` in ../upstream/launch). */
export interface StdioLaunch {
  transport: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}
