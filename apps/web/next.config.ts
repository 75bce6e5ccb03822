import type { NextConfig } from "next";
import { SECURITY_HEADERS } from "./src/server/http/security-headers";

const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Native/stream-heavy server packages stay outside the bundle.
  serverExternalPackages: ["bullmq", "ioredis", "pino", "pg", "@prisma/adapter-pg", "@prisma/client", "nodemailer"],
  typedRoutes: false,
  // The fixed security headers on every response; the Content Security Policy comes from src/proxy.ts.
  async headers() {
    return [{ source: "/:path*", headers: [...SECURITY_HEADERS] }];
  },
};

export default config;
