import type { NextConfig } from "next";

const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Native/stream-heavy server packages stay outside the bundle.
  serverExternalPackages: ["bullmq", "ioredis", "pino", "pg", "@prisma/adapter-pg", "@prisma/client", "nodemailer"],
  typedRoutes: false,
};

export default config;
