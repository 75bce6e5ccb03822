import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { disconnectDb } from "@switchboard/db/client";
import { flushAuditExport } from "@switchboard/runtime/audit-export";
import { closeJobs } from "@switchboard/runtime/jobs";

// A small OTLP/HTTP receiver standing in for the SIEM's collector; the environment is parsed on first use, after this.
const received: unknown[] = [];
const receiver = createServer((req: IncomingMessage, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    if (req.url === "/v1/logs") received.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
process.env.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/logs`;

const { signedInCaller } = await import("./support/caller");

afterAll(async () => {
  receiver.close();
  await closeJobs();
  await disconnectDb();
});

type Attr = { key: string; value: { stringValue?: string; intValue?: string | number } };
type Export = { resourceLogs: Array<{ scopeLogs: Array<{ logRecords: Array<{ attributes: Attr[] }> }> }> };

describe("audit trail as OpenTelemetry logs", () => {
  it("streams each record to the configured OTLP endpoint with its action, actor, chain position and hash", async () => {
    const admin = await signedInCaller("audit-otlp");
    const name = `Otlp ${randomBytes(3).toString("hex")}`;
    const team = await admin.caller.team.create({ name });
    const records = () =>
      (received as Export[])
        .flatMap((e) => e.resourceLogs.flatMap((r) => r.scopeLogs.flatMap((s) => s.logRecords)))
        .map((l) => Object.fromEntries(l.attributes.map((a) => [a.key, a.value.stringValue ?? a.value.intValue])));
    await expect
      .poll(async () => {
        await flushAuditExport();
        return records().find((r) => r["switchboard.team.id"] === team.id);
      })
      .toMatchObject({
        "switchboard.audit.action": "team.create",
        "enduser.id": admin.userId,
        "switchboard.audit.target.label": name,
      });
    const record = records().find((r) => r["switchboard.team.id"] === team.id)!;
    expect(String(record["switchboard.audit.seq"])).toBe("1");
    expect(record["switchboard.audit.hash"]).toMatch(/^[0-9a-f]{64}$/);
  });
});
