import type { Logger as OtelLogger } from "@opentelemetry/api-logs";
import { env } from "./env";
import { logger } from "./logger";

/**
 * The audit trail streamed to a SIEM as OpenTelemetry logs (OTLP/HTTP), one log record per audit record. Off
 * unless `OTEL_EXPORTER_OTLP_LOGS_ENDPOINT` is set (the exporter also reads the other standard `OTEL_EXPORTER_OTLP_*`
 * settings: headers, timeout, compression). The SDK is loaded only then, so a deployment without it pays nothing.
 */

export interface AuditExportRecord {
  teamId?: string | null;
  actorId?: string | null;
  actorLabel: string;
  action: string;
  targetType?: string | null;
  targetId?: string | null;
  targetLabel?: string | null;
  ip?: string | null;
  client?: string | null;
  seq: number;
  hash: string;
  detail?: Record<string, unknown>;
}

let otel: Promise<{ logger: OtelLogger; flush: () => Promise<void> } | null> | null = null;

function start() {
  otel ??= (async () => {
    const e = env();
    if (!e.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT) return null;
    const [{ LoggerProvider, BatchLogRecordProcessor }, { OTLPLogExporter }, { resourceFromAttributes }] =
      await Promise.all([
        import("@opentelemetry/sdk-logs"),
        import("@opentelemetry/exporter-logs-otlp-http"),
        import("@opentelemetry/resources"),
      ]);
    const provider = new LoggerProvider({
      resource: resourceFromAttributes({ "service.name": e.OTEL_SERVICE_NAME ?? "switchboard" }),
      processors: [
        new BatchLogRecordProcessor({
          exporter: new OTLPLogExporter({ url: e.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT }),
          scheduledDelayMillis: 1000,
        }),
      ],
    });
    return { logger: provider.getLogger("switchboard.audit"), flush: () => provider.forceFlush() };
  })().catch((err: unknown) => {
    logger.error({ err }, "could not start the audit trail's OTLP log export");
    return null;
  });
  return otel;
}

/** Streams one record when export is configured; never throws, never waits for the network. */
export function exportAuditRecord(record: AuditExportRecord): void {
  if (!env().OTEL_EXPORTER_OTLP_LOGS_ENDPOINT) return;
  void start().then((o) => {
    if (!o) return;
    const attributes: Record<string, string | number> = {
      "event.name": `switchboard.audit.${record.action}`,
      "switchboard.audit.action": record.action,
      "switchboard.audit.seq": record.seq,
      "switchboard.audit.hash": record.hash,
      "enduser.id": record.actorId ?? "",
      "switchboard.audit.actor": record.actorLabel,
    };
    if (record.teamId) attributes["switchboard.team.id"] = record.teamId;
    if (record.targetType) attributes["switchboard.audit.target.type"] = record.targetType;
    if (record.targetId) attributes["switchboard.audit.target.id"] = record.targetId;
    if (record.targetLabel) attributes["switchboard.audit.target.label"] = record.targetLabel;
    if (record.ip) attributes["client.address"] = record.ip;
    if (record.client) attributes["user_agent.original"] = record.client;
    o.logger.emit({
      severityText: "INFO",
      severityNumber: 9,
      body: `${record.actorLabel} ${record.action}${record.targetLabel ? ` ${record.targetLabel}` : ""}`,
      attributes,
    });
  });
}

/** Sends what is buffered (tests; shutdown). */
export async function flushAuditExport(): Promise<void> {
  const o = await (otel ?? Promise.resolve(null));
  await o?.flush();
}
