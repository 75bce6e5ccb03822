import { describe, expect, it } from "vitest";
import {
  DEFAULT_GUARDRAILS,
  findPersonalData,
  guardrailGate,
  guardrailRefusalMessage,
  ibanValid,
  luhnValid,
  resolveGuardrails,
  scanForGuardrails,
  type GuardrailCategory,
  type GuardrailSettings,
} from "../src/guardrails";

// Planted values: each is what its detector must find (and a record must never hold).
const PLANTED = {
  credentials:
    /* a made-up token in GitHub's format, split so secret scanners do not take it for a leak */ "ghp_" +
    "wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx",
  card: "4111 1111 1111 1111",
  iban: "DE89 3704 0044 0532 0130 00",
  email: "jane.doe@example.com",
  phone: "+44 20 7946 0958",
} as const;

const only = (category: GuardrailCategory, action: GuardrailSettings[GuardrailCategory]): GuardrailSettings => ({
  credentials: "off",
  card: "off",
  iban: "off",
  email: "off",
  phone: "off",
  [category]: action,
});
const all = (action: GuardrailSettings[GuardrailCategory]): GuardrailSettings => ({
  credentials: action,
  card: action,
  iban: action,
  email: action,
  phone: action,
});
const found = (text: string, category: GuardrailCategory) =>
  findPersonalData(text, new Set([category])).map((m) => text.slice(m.start, m.end));

describe("personal data detectors", () => {
  it("checks card numbers with Luhn", () => {
    expect(luhnValid("4111111111111111")).toBe(true);
    expect(luhnValid("4111111111111112")).toBe(false);
    expect(found(`pay with ${PLANTED.card} today`, "card")).toEqual([PLANTED.card]);
    expect(found("card 5500-0000-0000-0004.", "card")).toEqual(["5500-0000-0000-0004"]);
    expect(found("order 4111111111111112 shipped", "card")).toEqual([]);
    // A Luhn-valid run inside a longer number is not a card.
    expect(found("id 94111111111111111123", "card")).toEqual([]);
  });

  it("checks IBANs with mod-97 and the country's length", () => {
    expect(ibanValid("DE89370400440532013000")).toBe(true);
    expect(ibanValid("DE89370400440532013001")).toBe(false);
    expect(found(`to ${PLANTED.iban} please`, "iban")).toEqual([PLANTED.iban]);
    expect(found("GB82WEST12345698765432", "iban")).toEqual(["GB82WEST12345698765432"]);
    expect(found("DE89 3704 0044 0532 0130 01", "iban")).toEqual([]);
    expect(found("ZZ89370400440532013000", "iban")).toEqual([]);
  });

  it("finds email addresses", () => {
    expect(found(`write to ${PLANTED.email}, or not`, "email")).toEqual([PLANTED.email]);
    expect(found("a@b is not one, nor is user@localhost", "email")).toEqual([]);
  });

  it("finds phone numbers as people write them, not plain integers", () => {
    expect(found(`call ${PLANTED.phone} now`, "phone")).toEqual([PLANTED.phone]);
    expect(found("+14155550123", "phone")).toEqual(["+14155550123"]);
    expect(found("(415) 555-0123", "phone")).toEqual(["(415) 555-0123"]);
    expect(found("415-555-0123", "phone")).toEqual(["415-555-0123"]);
    expect(found("020 7946 0958", "phone")).toEqual(["020 7946 0958"]);
    expect(found("order 4155550123 and id 1732783210000", "phone")).toEqual([]);
    expect(found("on 2026-11-28 at 10.0.0.1", "phone")).toEqual([]);
  });
});

describe("guardrail settings", () => {
  it("flags credentials and leaves personal data alone unless an admin says otherwise", () => {
    expect(resolveGuardrails({})).toEqual(DEFAULT_GUARDRAILS);
    expect(DEFAULT_GUARDRAILS).toEqual({ credentials: "flag", card: "off", iban: "off", email: "off", phone: "off" });
    expect(resolveGuardrails({ email: "redact" }).email).toBe("redact");
    // Something unreadable stored counts as unset, never as a wider setting.
    expect(resolveGuardrails({ email: "shout" })).toEqual(DEFAULT_GUARDRAILS);
  });

  it("says in one sentence what blocked the call, without the value", () => {
    const message = guardrailRefusalMessage(
      [{ category: "card", rule: "card-luhn", where: "arguments", path: "$.n", count: 1, action: "block" }],
      "arguments",
    );
    expect(message).toBe("This call was blocked by a guardrail because its arguments contain a card number.");
  });
});

describe("scanForGuardrails", () => {
  const args = {
    note: `card ${PLANTED.card} and mail ${PLANTED.email}`,
    nested: { list: [`token ${PLANTED.credentials}`, 42, { iban: PLANTED.iban }], phone: PLANTED.phone },
  };

  it("finds every category in arguments, at its path, counted, without the value", async () => {
    const scan = await scanForGuardrails(args, "arguments", all("flag"));
    expect(scan?.findings).toEqual(
      expect.arrayContaining([
        { category: "card", rule: "card-luhn", where: "arguments", path: "$.note", count: 1, action: "flag" },
        { category: "email", rule: "email", where: "arguments", path: "$.note", count: 1, action: "flag" },
        {
          category: "credentials",
          rule: "@secretlint/secretlint-rule-github",
          where: "arguments",
          path: "$.nested.list[0]",
          count: 1,
          action: "flag",
        },
        {
          category: "iban",
          rule: "iban-mod97",
          where: "arguments",
          path: "$.nested.list[2].iban",
          count: 1,
          action: "flag",
        },
        { category: "phone", rule: "phone", where: "arguments", path: "$.nested.phone", count: 1, action: "flag" },
      ]),
    );
    expect(scan?.findings).toHaveLength(5);
    const json = JSON.stringify(scan?.findings);
    for (const value of Object.values(PLANTED)) expect(json).not.toContain(value);
  });

  it("flag passes the value as it came; the record has every match replaced", async () => {
    const scan = await scanForGuardrails(args, "arguments", all("flag"));
    expect(scan?.blocked).toBe(false);
    expect(scan?.value).toBe(args);
    const recorded = JSON.stringify(scan?.recorded);
    for (const value of Object.values(PLANTED)) expect(recorded).not.toContain(value);
  });

  it("redact replaces the matched spans only and keeps the structure", async () => {
    const scan = await scanForGuardrails(args, "arguments", all("redact"));
    expect(scan?.value).toEqual({
      note: "card [redacted:card] and mail [redacted:email]",
      nested: {
        list: ["token [redacted:credentials]", 42, { iban: "[redacted:iban]" }],
        phone: "[redacted:phone]",
      },
    });
    // The caller's object is not changed.
    expect(args.note).toContain(PLANTED.card);
  });

  it("redacts only the categories set to redact", async () => {
    const scan = await scanForGuardrails(args, "arguments", { ...all("flag"), email: "redact" });
    expect((scan?.value as typeof args).note).toBe(`card ${PLANTED.card} and mail [redacted:email]`);
  });

  it("block says the value must not go on", async () => {
    const scan = await scanForGuardrails(args, "arguments", only("iban", "block"));
    expect(scan?.blocked).toBe(true);
    expect(scan?.findings.map((f) => f.category)).toEqual(["iban"]);
  });

  it("off finds nothing", async () => {
    expect(await scanForGuardrails(args, "arguments", all("off"))).toBeUndefined();
    expect(await scanForGuardrails({ note: "nothing to see" }, "arguments", all("block"))).toBeUndefined();
  });

  it("scans a tool result's text, embedded resources and structured content, and keeps its shape", async () => {
    const result = {
      content: [
        { type: "text", text: `mail ${PLANTED.email}` },
        { type: "resource", resource: { uri: "file:///a.txt", mimeType: "text/plain", text: `card ${PLANTED.card}` } },
        { type: "image", data: "aGVsbG8=", mimeType: "image/png" },
      ],
      structuredContent: { account: { iban: PLANTED.iban } },
      isError: false,
    };
    const scan = await scanForGuardrails(result, "result", all("redact"));
    expect(scan?.findings.map((f) => [f.category, f.path])).toEqual([
      ["email", "$.content[0].text"],
      ["card", "$.content[1].resource.text"],
      ["iban", "$.structuredContent.account.iban"],
    ]);
    expect(scan?.value).toEqual({
      content: [
        { type: "text", text: "mail [redacted:email]" },
        { type: "resource", resource: { uri: "file:///a.txt", mimeType: "text/plain", text: "card [redacted:card]" } },
        { type: "image", data: "aGVsbG8=", mimeType: "image/png" },
      ],
      structuredContent: { account: { iban: "[redacted:iban]" } },
      isError: false,
    });
  });

  it("scans resource contents' text", async () => {
    const contents = {
      contents: [
        { uri: "data://x", text: `key ${PLANTED.credentials}` },
        { uri: "data://y", blob: "AAAA" },
      ],
    };
    const scan = await scanForGuardrails(contents, "resource", only("credentials", "redact"));
    expect(scan?.findings.map((f) => [f.category, f.where, f.path])).toEqual([
      ["credentials", "resource", "$.contents[0].text"],
    ]);
    expect(scan?.value).toEqual({
      contents: [
        { uri: "data://x", text: "key [redacted:credentials]" },
        { uri: "data://y", blob: "AAAA" },
      ],
    });
  });

  it("is not switched off by a secretlint-disable comment in the data", async () => {
    const scan = await scanForGuardrails(
      { a: `// secretlint-disable\ntoken ${PLANTED.credentials}` },
      "arguments",
      only("credentials", "redact"),
    );
    expect(scan?.value).toEqual({ a: "// secretlint-disable\ntoken [redacted:credentials]" });
  });

  it("counts repeated matches in one string as one finding", async () => {
    const scan = await scanForGuardrails(
      { a: `${PLANTED.email} ${PLANTED.email}` },
      "arguments",
      only("email", "flag"),
    );
    expect(scan?.findings).toEqual([
      { category: "email", rule: "email", where: "arguments", path: "$.a", count: 2, action: "flag" },
    ]);
  });
});

describe("guardrailGate", () => {
  const call = {
    installationId: "inst",
    instanceId: "i1",
    installation: "demo",
    userId: "u1",
    kind: "tool" as const,
    target: "echo",
    where: "arguments" as const,
  };

  it("reports what it found, without the value, and hands back the scan", async () => {
    const reports: unknown[] = [];
    const gate = guardrailGate({
      source: { settings: async () => only("email", "redact") },
      report: (c, findings) => reports.push({ c, findings }),
    });
    const scan = await gate.scan(call, { to: PLANTED.email });
    expect(scan?.value).toEqual({ to: "[redacted:email]" });
    expect(reports).toHaveLength(1);
    expect(JSON.stringify(reports)).not.toContain(PLANTED.email);
  });

  it("fails open when the settings cannot be read, and says so", async () => {
    const errors: unknown[] = [];
    const gate = guardrailGate({
      source: { settings: () => Promise.reject(new Error("database down")) },
      onError: (error) => errors.push(error),
    });
    expect(await gate.scan(call, { to: PLANTED.email })).toBeUndefined();
    expect(errors).toHaveLength(1);
  });

  it("finds nothing for an installation with every category off", async () => {
    const gate = guardrailGate({ source: { settings: async () => all("off") } });
    expect(await gate.scan(call, { to: PLANTED.email })).toBeUndefined();
  });
});
