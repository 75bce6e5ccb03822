import path from "node:path";
import type { NextConfig } from "next";
import { SECURITY_HEADERS } from "./src/server/http/security-headers";

const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // A production build is a self-contained server (.next/standalone/apps/web/server.js with the node_modules it
  // traced), which the gateway runs as its console child; see docs/production.md. Traced from the repository's
  // root so the workspace packages and hoisted node_modules are found.
  output: "standalone",
  outputFileTracingRoot: path.resolve(import.meta.dirname, "../.."),
  // Native/stream-heavy server packages stay outside the bundle.
  serverExternalPackages: [
    "bullmq",
    "ioredis",
    "pino",
    "pg",
    "@prisma/adapter-pg",
    "@prisma/client",
    "nodemailer",
    "@cedar-policy/cedar-wasm",
  ],
  typedRoutes: false,
  // The fixed security headers on every response; the Content Security Policy comes from src/proxy.ts.
  async headers() {
    return [{ source: "/:path*", headers: [...SECURITY_HEADERS] }];
  },
};

export default config;
