/**
 * Completes Next's standalone output of the console, as Next's docs ask: the standalone server does not carry the
 * browser assets (.next/static) nor public/, which a CDN would usually serve; the gateway's console child serves
 * them itself, so they are copied beside its server.js. Run from apps/web after `next build`.
 */
import { cpSync, existsSync } from "node:fs";
import path from "node:path";

const web = process.cwd();
const standalone = path.join(web, ".next/standalone/apps/web");
if (!existsSync(path.join(standalone, "server.js"))) {
  console.error(`no standalone server at ${standalone}: is output: "standalone" set in next.config.ts?`);
  process.exit(1);
}
cpSync(path.join(web, ".next/static"), path.join(standalone, ".next/static"), { recursive: true });
if (existsSync(path.join(web, "public")))
  cpSync(path.join(web, "public"), path.join(standalone, "public"), { recursive: true });
