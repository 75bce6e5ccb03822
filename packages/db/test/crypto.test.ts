import { describe, expect, it } from "vitest";
import {
  createCipher,
  DecryptionError,
  EncryptionKeyError,
  generateEncryptionKey,
  parseEncryptionKey,
} from "../src/crypto";

describe("encryption at rest", () => {
  const cipher = createCipher(parseEncryptionKey(generateEncryptionKey()));

  it("round-trips a secret and never stores it in clear", () => {
    const sealed = cipher.encrypt("sk-live-abc123");
    expect(sealed).not.toContain("sk-live-abc123");
    expect(sealed.startsWith("v1.")).toBe(true);
    expect(cipher.decrypt(sealed)).toBe("sk-live-abc123");
  });

  it("uses a fresh IV for every value", () => {
    expect(cipher.encrypt("same")).not.toBe(cipher.encrypt("same"));
  });

  it("rejects a tampered ciphertext", () => {
    const [v, iv, tag, data] = cipher.encrypt("secret").split(".");
    const flipped = Buffer.from(data!, "base64url");
    flipped[0]! ^= 1;
    expect(() => cipher.decrypt([v, iv, tag, flipped.toString("base64url")].join("."))).toThrow(DecryptionError);
  });

  it("cannot decrypt with another key", () => {
    const other = createCipher(parseEncryptionKey(generateEncryptionKey()));
    expect(() => other.decrypt(cipher.encrypt("secret"))).toThrow(DecryptionError);
  });

  it("refuses to work without a key, or with a key of the wrong size", () => {
    expect(() => parseEncryptionKey(undefined)).toThrow(EncryptionKeyError);
    expect(() => parseEncryptionKey("")).toThrow(/not set/);
    expect(() => parseEncryptionKey(Buffer.alloc(16).toString("base64"))).toThrow(/32 bytes/);
    expect(parseEncryptionKey("ab".repeat(32))).toHaveLength(32);
  });
});
