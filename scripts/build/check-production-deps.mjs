/**
 * Checks that a compiled bundle (scripts/build/bundle.mjs) imports, at run time, only packages that are
 * production dependencies of its app: the `dependencies` of the app's package.json and of the workspace
 * packages it depends on (transitively, as their source is bundled into it), never a devDependency, nor a
 * package that merely happens to be hoisted into node_modules. Each must also resolve from the bundle's folder
 * to a copy that `npm ci --omit=dev` installs (not marked "dev" in package-lock.json).
 *
 *   node scripts/build/check-production-deps.mjs [app folder ...]   (default: apps/gateway apps/worker)
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const readJson = (file) => JSON.parse(readFileSync(file, "utf8"));

/** The package a bare import names: `@scope/name/sub/path` -> `@scope/name`, `name/sub` -> `name`. */
export function packageName(specifier) {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/** Workspace package name -> its folder, from the root package.json's workspaces globs (`dir/*` only). */
function workspaceFolders(repo) {
  const folders = new Map();
  for (const glob of readJson(path.join(repo, "package.json")).workspaces ?? []) {
    const base = glob.replace(/\/\*$/, "");
    const dirs = glob.endsWith("/*")
      ? readdirSync(path.join(repo, base), { withFileTypes: true })
          .filter((d) => d.isDirectory())
          .map((d) => path.join(base, d.name))
      : [base];
    for (const dir of dirs) {
      const file = path.join(repo, dir, "package.json");
      if (existsSync(file)) folders.set(readJson(file).name, path.join(repo, dir));
    }
  }
  return folders;
}

/** The npm packages an app may import at run time: its production dependencies and its workspace packages'. */
export function productionDependencies(appDir, repo = root) {
  const folders = workspaceFolders(repo);
  const allowed = new Set();
  const seen = new Set();
  const visit = (dir) => {
    if (seen.has(dir)) return;
    seen.add(dir);
    const pkg = readJson(path.join(dir, "package.json"));
    for (const name of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) {
      if (folders.has(name)) visit(folders.get(name));
      else allowed.add(name);
    }
  };
  visit(path.resolve(appDir));
  return allowed;
}

/** The bare specifiers a bundle leaves to node_modules, from its esbuild metafile. */
export function externalImports(metafile) {
  const specs = new Set();
  for (const output of Object.values(metafile.outputs))
    for (const imported of output.imports)
      if (imported.external && !imported.path.startsWith("node:")) specs.add(imported.path);
  return [...specs].sort();
}

/**
 * What is wrong with a bundle's run-time imports (an empty list when nothing is): each names the import and why.
 * `metafile` is esbuild's; `bundleDir` is where the bundle runs from; `appDir` the app whose dependencies count.
 */
export function productionDepsProblems({ metafile, bundleDir, appDir, repo = root }) {
  const allowed = productionDependencies(appDir, repo);
  const lock = readJson(path.join(repo, "package-lock.json")).packages;
  const problems = [];
  for (const spec of externalImports(metafile)) {
    const name = packageName(spec);
    if (!allowed.has(name)) {
      problems.push(
        `${spec}: ${name} is not among the production dependencies of ${path.relative(repo, appDir)} or its workspace packages`,
      );
      continue;
    }
    // Where node finds it from the bundle's folder, and whether a production install has that copy.
    let found;
    for (let dir = bundleDir; ; dir = path.dirname(dir)) {
      const candidate = path.join(dir, "node_modules", name);
      if (existsSync(path.join(candidate, "package.json"))) {
        found = candidate;
        break;
      }
      if (path.dirname(dir) === dir || path.relative(repo, dir).startsWith("..")) break;
    }
    if (!found) {
      problems.push(`${spec}: ${name} is not installed where the bundle would find it`);
      continue;
    }
    const entry = lock[path.relative(repo, found)];
    if (!entry) problems.push(`${spec}: ${path.relative(repo, found)} is not in package-lock.json`);
    else if (entry.dev) problems.push(`${spec}: ${path.relative(repo, found)} is installed for development only`);
  }
  return problems;
}

const BUNDLES = { "apps/gateway": "dist/server.js", "apps/worker": "dist/main.js" };

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const apps = process.argv.length > 2 ? process.argv.slice(2) : Object.keys(BUNDLES);
  let failed = false;
  for (const app of apps) {
    const appDir = path.resolve(root, app);
    const bundle = path.join(appDir, BUNDLES[app] ?? "dist/index.js");
    const metaFile = `${bundle}.meta.json`;
    if (!existsSync(metaFile)) {
      console.error(`${app}: no ${path.relative(root, metaFile)}; run npm run build first`);
      failed = true;
      continue;
    }
    const metafile = readJson(metaFile);
    const problems = productionDepsProblems({ metafile, bundleDir: path.dirname(bundle), appDir });
    const count = externalImports(metafile).length;
    if (problems.length === 0) console.log(`${app}: ${count} run-time imports, all production dependencies`);
    for (const p of problems) console.error(`${app}: ${p}`);
    failed ||= problems.length > 0;
  }
  process.exit(failed ? 1 : 0);
}
