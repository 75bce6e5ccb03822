import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import {
  GUARDRAIL_BLOCKED_CODE,
  guardrailGate,
  type GuardedCall,
  type GuardrailFinding,
  type GuardrailSettings,
} from "../src/guardrails";
import type { HttpFixture } from "./fixtures/http-fixture";
import { createHarness, type Harness } from "./fixtures/proxy-harness";
import { startStreamableHttpServer } from "./fixtures/streamable-http-server";

const TOKEN =
  /* a made-up token in GitHub's format, split so secret scanners do not take it for a leak */ "ghp_" +
  "wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx";
const CARD = "4111 1111 1111 1111";
const IBAN = "DE89 3704 0044 0532 0130 00";
const EMAIL = "jane.doe@example.com";

/** An upstream that echoes what it was sent and answers with planted values in every part of a result. */
function leakyServer(received: unknown[]): () => Server {
  return () => {
    const server = new Server({ name: "leaky", version: "0" }, { capabilities: { tools: {}, resources: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [
        { name: "echo", inputSchema: { type: "object" as const } },
        { name: "leak", inputSchema: { type: "object" as const } },
      ],
    }));
    server.setRequestHandler(CallToolRequestSchema, (req) => {
      received.push(req.params.arguments);
      if (req.params.name === "echo") return { content: [{ type: "text", text: "ok" }] };
      return {
        content: [
          { type: "text", text: `your token is ${TOKEN}` },
          { type: "resource", resource: { uri: "file:///card.txt", mimeType: "text/plain", text: `card ${CARD}` } },
        ],
        structuredContent: { owner: { iban: IBAN, mail: EMAIL } },
      };
    });
    server.setRequestHandler(ListResourcesRequestSchema, () => ({
      resources: [{ uri: "data://secret", name: "secret" }],
    }));
    server.setRequestHandler(ReadResourceRequestSchema, (req) => ({
      contents: [{ uri: req.params.uri, mimeType: "text/plain", text: `deploy key ${TOKEN}` }],
    }));
    return server;
  };
}

let harness: Harness;
const fixtures: HttpFixture[] = [];
afterEach(async () => {
  await harness?.close();
  await Promise.all(fixtures.splice(0).map((f) => f.stop()));
});

async function setup(settings: GuardrailSettings) {
  const received: unknown[] = [];
  const fixture = await startStreamableHttpServer(leakyServer(received));
  fixtures.push(fixture);
  harness = createHarness();
  await harness.install("alice", "a1", "leaky", fixture);
  const reports: Array<{ call: GuardedCall; findings: readonly GuardrailFinding[] }> = [];
  const guardrails = guardrailGate({
    source: { settings: async () => settings },
    report: (call, findings) => reports.push({ call, findings }),
  });
  const { client } = await harness.connectMember("alice", { guardrails });
  return { client, received, reports, records: harness.app.records };
}

const all = (action: GuardrailSettings["card"]): GuardrailSettings => ({
  credentials: action,
  card: action,
  iban: action,
  email: action,
  phone: action,
});
const planted = [TOKEN, CARD, IBAN, EMAIL];
const withoutPlanted = (value: unknown) => {
  const json = JSON.stringify(value);
  for (const p of planted) expect(json).not.toContain(p);
};

describe("guardrails on the proxy", () => {
  it("flag: arguments and result go through as they are; the record has the findings and no value", async () => {
    const { client, received, reports, records } = await setup(all("flag"));
    const result = await client.callTool({ name: "leaky-leak", arguments: { note: `mail ${EMAIL}` } });
    expect(received).toEqual([{ note: `mail ${EMAIL}` }]);
    expect(JSON.stringify(result)).toContain(TOKEN);
    const record = records.at(-1)!;
    expect(record.outcome).toBe("success");
    expect(record.guardrailFindings?.map((f) => [f.where, f.category, f.action])).toEqual([
      ["arguments", "email", "flag"],
      ["result", "credentials", "flag"],
      ["result", "card", "flag"],
      ["result", "iban", "flag"],
      ["result", "email", "flag"],
    ]);
    // The request log keeps the arguments with the match replaced, even when only flagged.
    expect(record.arguments).toEqual({ note: "mail [redacted:email]" });
    withoutPlanted(record);
    expect(reports.map((r) => r.call.where)).toEqual(["arguments", "result"]);
    withoutPlanted(reports);
  });

  it("redact: the upstream gets redacted arguments and the client a redacted result of the same shape", async () => {
    const { client, received, records } = await setup(all("redact"));
    const result = await client.callTool({ name: "leaky-leak", arguments: { note: `card ${CARD}` } });
    expect(received).toEqual([{ note: "card [redacted:card]" }]);
    expect(result).toEqual({
      content: [
        { type: "text", text: "your token is [redacted:credentials]" },
        {
          type: "resource",
          resource: { uri: "file:///card.txt", mimeType: "text/plain", text: "card [redacted:card]" },
        },
      ],
      structuredContent: { owner: { iban: "[redacted:iban]", mail: "[redacted:email]" } },
    });
    withoutPlanted(records.at(-1));
  });

  it("block on arguments: refused with -32030 and one sentence, never forwarded, recorded as blocked", async () => {
    const { client, received, records } = await setup({ ...all("off"), card: "block" });
    const error = await client
      .callTool({ name: "leaky-echo", arguments: { note: `card ${CARD}` } })
      .catch((e: unknown) => e as { code: number; message: string });
    expect(error).toMatchObject({ code: GUARDRAIL_BLOCKED_CODE });
    expect((error as { message: string }).message).toContain(
      "This call was blocked by a guardrail because its arguments contain a card number.",
    );
    expect(received).toEqual([]);
    const record = records.at(-1)!;
    expect(record.outcome).toBe("blocked");
    expect(record.guardrailFindings).toEqual([
      { category: "card", rule: "card-luhn", where: "arguments", path: "$.note", count: 1, action: "block" },
    ]);
    withoutPlanted(record);
  });

  it("block on a result: the tool ran, the client gets a tool error saying it was withheld", async () => {
    const { client, received } = await setup({ ...all("off"), credentials: "block" });
    const result = await client.callTool({ name: "leaky-leak", arguments: {} });
    expect(received).toHaveLength(1);
    expect(result).toEqual({
      isError: true,
      content: [
        { type: "text", text: "The tool's result was withheld by a guardrail because it contains a credential." },
      ],
    });
  });

  it("redacts resource contents and records where", async () => {
    const { client, records } = await setup({ ...all("off"), credentials: "redact" });
    const uri = (await client.listResources()).resources[0]!.uri;
    const contents = await client.readResource({ uri });
    expect(contents.contents).toEqual([
      { uri: "data://secret", mimeType: "text/plain", text: "deploy key [redacted:credentials]" },
    ]);
    expect(records.at(-1)!.guardrailFindings).toEqual([
      {
        category: "credentials",
        rule: "@secretlint/secretlint-rule-github",
        where: "resource",
        path: "$.contents[0].text",
        count: 1,
        action: "redact",
      },
    ]);
  });

  it("withholds resource contents a guardrail blocks, with -32030", async () => {
    const { client } = await setup({ ...all("off"), credentials: "block" });
    const uri = (await client.listResources()).resources[0]!.uri;
    await expect(client.readResource({ uri })).rejects.toMatchObject({ code: GUARDRAIL_BLOCKED_CODE });
  });

  it("off: nothing is scanned or recorded", async () => {
    const { client, received, reports, records } = await setup(all("off"));
    const result = await client.callTool({ name: "leaky-leak", arguments: { note: CARD } });
    expect(received).toEqual([{ note: CARD }]);
    expect(JSON.stringify(result)).toContain(TOKEN);
    expect(records.at(-1)!.guardrailFindings).toBeUndefined();
    expect(reports).toEqual([]);
  });
});
