import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  externalImports,
  productionDepsProblems,
  type EsbuildMetafile,
} from "../../../scripts/build/check-production-deps.mjs";

export interface CompiledApp {
  /** What the describe block calls it ("gateway"). */
  name: string;
  /** The app's folder (its package.json, its `dist`). */
  appDir: string;
  /** The bundle's file in `dist` ("server.js"). */
  bundle: string;
  /** npm packages the bundle must leave to node_modules (a few the app is known to import). */
  externals: string[];
  /** A development dependency of the app or of a package it uses, which the check must refuse. */
  devDependency: string;
}

/**
 * The checks of an app's compiled bundle (scripts/build/bundle.mjs): it imports at run time only production
 * dependencies of the app and of the workspace packages it uses, and the check would refuse anything else.
 */
export function describeProductionBundle({ name, appDir, bundle, externals, devDependency }: CompiledApp): void {
  const bundleDir = path.join(appDir, "dist");
  const metaFile = path.join(bundleDir, `${bundle}.meta.json`);
  let metafile: EsbuildMetafile;

  beforeAll(() => {
    // `turbo run test` builds first; a bare `vitest run` builds the bundle here (about a second).
    if (!existsSync(metaFile)) execFileSync("npm", ["run", "build"], { cwd: appDir, stdio: "inherit" });
    metafile = JSON.parse(readFileSync(metaFile, "utf8")) as EsbuildMetafile;
  });

  describe(`the compiled ${name} (dist/${bundle})`, () => {
    it(`imports at run time only production dependencies of the ${name} and the workspace packages it uses`, () => {
      const external = externalImports(metafile);
      // Our own code is inside the bundle; npm packages are left to node_modules.
      expect(external.filter((spec) => spec.startsWith("@switchboard/"))).toEqual([]);
      expect(external).toEqual(expect.arrayContaining(externals));
      expect(productionDepsProblems({ metafile, bundleDir, appDir })).toEqual([]);
    });

    it("would be caught importing a development dependency or a package nobody declares", () => {
      const withDevImports: EsbuildMetafile = {
        outputs: {
          [`dist/${bundle}`]: {
            imports: [
              { path: "ioredis", external: true },
              { path: devDependency, external: true },
              { path: "esbuild", external: true }, // the root's devDependency
              { path: "vitest", external: true }, // installed, a dependency of packages/testing only
            ],
          },
        },
      };
      const problems = productionDepsProblems({ metafile: withDevImports, bundleDir, appDir });
      expect(problems.map((p) => p.split(":")[0])).toEqual([devDependency, "esbuild", "vitest"]);
    });
  });
}
