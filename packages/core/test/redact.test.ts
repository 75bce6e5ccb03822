import { describe, expect, it } from "vitest";
import { MIN_SECRET_LENGTH, redactingDestination, Redactor, SecretRegistry, secretForms } from "../src/config";

const API_KEY = "sk-live-7f3a9c1e55d0";
const MULTILINE = "-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQDFx\n-----END KEY-----";
const QUOTED = 'pa"ss\\word with space/slash';

describe("Redactor", () => {
  const r = Redactor.of([API_KEY, MULTILINE, QUOTED, "", "short"]);

  it("replaces each occurrence of a secret in text, keeping the words around it", () => {
    expect(r.text(`401 from upstream: key ${API_KEY} rejected (${API_KEY})`)).toBe(
      "401 from upstream: key [redacted] rejected ([redacted])",
    );
    expect(r.text("nothing secret here")).toBe("nothing secret here");
  });

  it("finds a secret JSON-escaped once and twice, URL-encoded, form-encoded and in base64", () => {
    const json = JSON.stringify({ key: QUOTED });
    expect(json).not.toContain(QUOTED);
    expect(r.text(json)).toBe('{"key":"[redacted]"}');
    expect(r.text(JSON.stringify({ body: json }))).not.toContain("word with space");
    expect(r.text(`https://x.test/?k=${encodeURIComponent(QUOTED)}`)).toBe("https://x.test/?k=[redacted]");
    expect(r.text(`k=${encodeURIComponent(QUOTED).replace(/%20/g, "+")}`)).toBe("k=[redacted]");
    expect(r.text(`Basic ${Buffer.from(API_KEY).toString("base64")}`)).toBe("Basic [redacted]");
    expect(r.text(`x=${Buffer.from(QUOTED).toString("base64url")}`)).toBe("x=[redacted]");
  });

  it("redacts a secret with newlines whole, JSON-escaped, and line by line when only some lines appear", () => {
    expect(r.text(`key:\n${MULTILINE}\nend`)).toBe("key:\n[redacted]\nend");
    expect(r.text(JSON.stringify(MULTILINE))).toBe('"[redacted]"');
    // A tail that kept only the last lines of the key, and CRLF line ends.
    const tail = MULTILINE.split("\n").slice(2).join("\r\n");
    expect(r.text(tail)).toBe("[redacted]\r\n[redacted]");
    expect(r.text("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC")).toBe("[redacted]");
  });

  it("does not search for values shorter than the minimum (they would match ordinary words)", () => {
    expect("short".length).toBeLessThan(MIN_SECRET_LENGTH);
    expect(secretForms("short")).toEqual([]);
    expect(secretForms("   abc   ")).toEqual([]);
    expect(r.text("a short message")).toBe("a short message");
  });

  it("redacts a secret cut in half at either end of a bounded text, and only there", () => {
    const cutStart = `${API_KEY.slice(5)} exited with 1`;
    const cutEnd = `using key ${API_KEY.slice(0, 12)}`;
    expect(r.text(cutStart, { bounded: true })).toBe("[redacted] exited with 1");
    expect(r.text(cutEnd, { bounded: true })).toBe("using key [redacted]");
    expect(r.text(cutEnd)).toBe(cutEnd);
    // Fewer characters than a meaningful fragment stay.
    expect(r.text(`${API_KEY.slice(-4)} tail`, { bounded: true })).toBe(`${API_KEY.slice(-4)} tail`);
  });

  it("redacts strings and keys deep in a JSON value without touching the input", () => {
    const input = {
      headers: { Authorization: `Bearer ${API_KEY}` },
      args: ["--token", API_KEY, 42, null, true],
      [API_KEY]: "v",
    };
    const snapshot = structuredClone(input);
    expect(r.value(input)).toEqual({
      headers: { Authorization: "Bearer [redacted]" },
      args: ["--token", "[redacted]", 42, null, true],
      "[redacted]": "v",
    });
    expect(input).toEqual(snapshot);
  });

  it("treats the credential of an Authorization-style value as a secret on its own, and a Basic password", () => {
    const basic = `Basic ${Buffer.from("svc-user:hunter2-long-pass").toString("base64")}`;
    const auth = Redactor.of(["Bearer ya29.a0AfH6SMBx-oauth-like", basic]);
    expect(auth.text("401: token ya29.a0AfH6SMBx-oauth-like expired")).toBe("401: token [redacted] expired");
    expect(auth.text("login svc-user:hunter2-long-pass refused")).toBe("login [redacted] refused");
    expect(auth.text("password hunter2-long-pass is wrong")).toBe("password [redacted] is wrong");
  });

  it("with no secrets returns what it was given", () => {
    const input = { a: [1, "two"] };
    expect(Redactor.none.value(input)).toBe(input);
    expect(Redactor.of(["", "abc"]).isEmpty).toBe(true);
  });
});

describe("SecretRegistry and the log destination", () => {
  it("redacts every scope's secrets in a log line and forgets replaced values", () => {
    const registry = new SecretRegistry();
    registry.set("i1", [API_KEY]);
    registry.set("i2", [MULTILINE]);
    const lines: string[] = [];
    const dest = redactingDestination(registry, (l) => void lines.push(l));
    dest.write(`${JSON.stringify({ msg: "failed", err: `bad key ${API_KEY}`, body: MULTILINE })}\n`);
    expect(lines[0]).not.toContain(API_KEY);
    expect(lines[0]).not.toContain("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC");
    expect(JSON.parse(lines[0]!)).toEqual({ msg: "failed", err: "bad key [redacted]", body: "[redacted]" });

    registry.set("i1", ["sk-live-rotated-000111"]);
    dest.write(`old ${API_KEY} new sk-live-rotated-000111`);
    expect(lines[1]).toBe(`old ${API_KEY} new [redacted]`);
    registry.forget("i2");
    dest.write(MULTILINE);
    expect(lines[2]).toBe(MULTILINE);
  });

  it("keeps a value shared by two scopes redacted until both forgot it, across thousands of scopes", () => {
    const registry = new SecretRegistry();
    for (let i = 0; i < 5_000; i++) registry.set(`bulk-${i}`, [`bulk-secret-${i}-${"x".repeat(i % 7)}-tail`]);
    registry.set("a", ["shared-team-key-123456"]);
    registry.set("b", ["shared-team-key-123456", "only-b-secret-999"]);
    expect(registry.text("k=shared-team-key-123456 b=only-b-secret-999 n=bulk-secret-4321-xx-tail")).toBe(
      "k=[redacted] b=[redacted] n=[redacted]",
    );
    registry.forget("a");
    expect(registry.text("shared-team-key-123456")).toBe("[redacted]");
    registry.set("b", []);
    expect(registry.text("shared-team-key-123456 only-b-secret-999")).toBe("shared-team-key-123456 only-b-secret-999");
  });
});
