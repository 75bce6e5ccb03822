export function packageName(specifier: string): string;
export function productionDependencies(appDir: string, repo?: string): Set<string>;
export function externalImports(metafile: EsbuildMetafile): string[];
export function productionDepsProblems(options: {
  metafile: EsbuildMetafile;
  bundleDir: string;
  appDir: string;
  repo?: string;
}): string[];
export interface EsbuildMetafile {
  outputs: Record<string, { imports: { path: string; kind?: string; external?: boolean }[] }>;
}
