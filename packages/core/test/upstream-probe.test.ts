import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { REVISION_2026 } from "../src/revisions";
import { PROTOCOL_VERSION_META_KEY, probeRevision } from "../src/upstream/revision";

const options = {
  clientInfo: { name: "switchboard", version: "0" },
  capabilities: { elicitation: {} },
  timeoutMs: 200,
};
const open: InMemoryTransport[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
});

/** A client transport whose peer answers each request with `answer` (or stays silent when it returns undefined). */
async function peer(answer: (request: { id: unknown; method: string; params?: unknown }) => unknown) {
  const [client, server] = InMemoryTransport.createLinkedPair();
  open.push(client, server);
  const received: JSONRPCMessage[] = [];
  server.onmessage = (message) => {
    received.push(message);
    if (!("method" in message) || !("id" in message)) return;
    const reply = answer(message);
    if (reply === "close") void server.close();
    else if (reply !== undefined) void server.send({ jsonrpc: "2.0", id: message.id, ...(reply as object) } as never);
  };
  await server.start();
  return { client, received };
}

describe("probeRevision (server/discover first)", () => {
  it("says 2026 for an answer listing 2026-07-28, sending the envelope, and leaves the transport usable", async () => {
    const discover = { supportedVersions: [REVISION_2026], capabilities: { tools: {} } };
    const { client, received } = await peer(() => ({ result: discover }));
    expect(await probeRevision(client, options)).toEqual({ kind: "2026", discover });
    expect(received[0]).toMatchObject({
      method: "server/discover",
      params: { _meta: { [PROTOCOL_VERSION_META_KEY]: REVISION_2026 } },
    });
    await expect(client.start()).resolves.toBeUndefined();
    expect(client.onmessage).toBeUndefined();
  });

  it("says 2025 for a JSON-RPC error (a 2025 server's method not found)", async () => {
    const { client } = await peer(() => ({ error: { code: -32601, message: "Method not found" } }));
    expect(await probeRevision(client, options)).toEqual({ kind: "2025" });
  });

  it("says 2025 for an answer that offers only revisions it does not speak", async () => {
    const { client } = await peer(() => ({ result: { supportedVersions: ["2099-01-01"], capabilities: {} } }));
    expect(await probeRevision(client, options)).toEqual({ kind: "2025" });
  });

  it("says 2025 when a local (non-HTTP) server stays silent past the timeout", async () => {
    const { client, received } = await peer(() => undefined);
    expect(await probeRevision(client, options)).toEqual({ kind: "2025" });
    expect(received).toHaveLength(1);
  });

  it("fails as initialize would when the connection closes before an answer", async () => {
    const { client } = await peer(() => "close");
    await expect(probeRevision(client, { ...options, timeoutMs: 5_000 })).rejects.toThrow(/Connection closed/);
  });
});
