import path from "node:path";
import { describeProductionBundle } from "@switchboard/testing/production-deps";

describeProductionBundle({
  name: "gateway",
  appDir: path.resolve(import.meta.dirname, ".."),
  bundle: "server.js",
  externals: ["ioredis", "pg", "@next/env"],
  devDependency: "@modelcontextprotocol/conformance", // the gateway's own devDependency
});
