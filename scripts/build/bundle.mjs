/**
 * Compiles a Node entry point of this repository (the gateway's server.ts, the worker's main.ts) into one ES
 * module with esbuild, for a production start that is plain `node` with production dependencies only.
 *
 * What goes into the bundle: our own TypeScript (the app and the workspace packages it imports, which export
 * their source; the Prisma client generated as TypeScript under packages/db). What stays an `import` of
 * node_modules: every npm package that Node resolves to the same file from the bundle's folder as from the
 * importing source file. A package only a workspace package can see (a version nested in its own
 * node_modules, as packages/core's ipaddr.js 2 beside the root's 1.x) is bundled instead, since `node` would
 * find the other version from dist/.
 *
 *   node scripts/build/bundle.mjs <entry.ts> <out.js> [asset ...]
 *
 * Assets are files the code reads beside itself at run time (`import.meta.dirname`, which is dist/ once
 * bundled): they are copied into the output's folder. A metafile (<out>.meta.json) lists what stayed
 * external; scripts/build/check-production-deps.mjs checks each of those is a production dependency.
 */
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import path from "node:path";
import * as esbuild from "esbuild";

const [entry, out, ...assets] = process.argv.slice(2);
if (!entry || !out) {
  console.error("usage: node scripts/build/bundle.mjs <entry.ts> <out.js> [asset ...]");
  process.exit(2);
}
const outdir = path.resolve(path.dirname(out));
if (path.basename(outdir) !== "dist") {
  console.error(`the output goes into a folder named dist (emptied first), not ${outdir}`);
  process.exit(2);
}
rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });

const BARE = /^[^./]/; // a package name (or a builtin), not a path
const isWorkspace = (spec) => spec.startsWith("@switchboard/");

/** @type {esbuild.Plugin} */
const externalWhereReachable = {
  name: "external-where-reachable",
  setup(build) {
    build.onResolve({ filter: BARE }, async (args) => {
      if (args.pluginData?.probe || isWorkspace(args.path) || isBuiltin(args.path)) return undefined;
      const from = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        pluginData: { probe: true },
      });
      if (from.errors.length > 0) return undefined; // esbuild reports it
      const fromDist = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: outdir,
        pluginData: { probe: true },
      });
      if (fromDist.errors.length === 0 && fromDist.path === from.path) return { path: args.path, external: true };
      return undefined; // bundled: dist/ would not find this copy
    });
  },
};

const result = await esbuild.build({
  entryPoints: [entry],
  outfile: out,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20.19",
  sourcemap: true,
  metafile: true,
  logLevel: "warning",
  // The Node conditions a plain `node` start uses (no "development"/"source" condition).
  conditions: ["node", "import"],
  banner: {
    js: [
      // A compiled start is a production start: `node dist/...` needs no NODE_ENV (an explicit value still wins).
      'process.env.NODE_ENV ??= "production";',
      // CommonJS code that got bundled (a nested dependency) may call require(): give the ES module one.
      'import { createRequire as __sbCreateRequire } from "node:module";',
      "const require = __sbCreateRequire(import.meta.url);",
    ].join("\n"),
  },
  plugins: [externalWhereReachable],
});
for (const asset of assets) copyFileSync(asset, path.join(outdir, path.basename(asset)));
writeFileSync(`${out}.meta.json`, JSON.stringify(result.metafile));
