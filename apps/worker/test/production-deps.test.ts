import path from "node:path";
import { describeProductionBundle } from "@switchboard/testing/production-deps";

describeProductionBundle({
  name: "worker",
  appDir: path.resolve(import.meta.dirname, ".."),
  bundle: "main.js",
  externals: ["ioredis", "bullmq", "pg"],
  devDependency: "@modelcontextprotocol/server-everything", // packages/core's devDependency
});
