import { describe, expect, it } from "vitest";
import { dbEnv, encryptionKeySetting, useProcessEnv } from "../src/env";

describe("packages/db's environment", () => {
  it("is what the process parsed at start, once handed over: process.env is not read for it again", () => {
    const key = Buffer.alloc(32, 3).toString("base64");
    useProcessEnv({ DATABASE_URL: "postgresql://given@127.0.0.1:5432/parsed", SWITCHBOARD_ENCRYPTION_KEY: key });
    const before = process.env.DATABASE_URL;
    process.env.DATABASE_URL = "not a url at all";
    try {
      expect(dbEnv()).toMatchObject({
        DATABASE_URL: "postgresql://given@127.0.0.1:5432/parsed",
        DATABASE_POOL_MAX: 10,
      });
      expect(encryptionKeySetting()).toBe(key);
    } finally {
      process.env.DATABASE_URL = before;
    }
  });
});
