/**
 * Guardrails benchmark: the same tools/call of an echo tool through one route process in the same run, for an
 * installation with every guardrail off (the gate reads its cached settings and scans nothing) and one with every
 * category on (credentials flagged, card numbers, IBANs, emails and phones redacted), so each call's arguments
 * and result are scanned by secretlint's recommended rules and the personal-data detectors (nothing matches: the
 * common case). What guardrails cost on the hot path, as latency with one client and as the route's CPU per call
 * with 32.
 */
import { setInstallationGuardrails } from "@switchboard/db/queries/governance";
import { runOnOff } from "./on-off";

export async function run(): Promise<void> {
  await runOnOff({
    name: "guardrails",
    describe: () => "an installation with every guardrail off and one with all on",
    latencyCalls: 1000,
    throughputCalls: 3000,
    async turnOn(db, { off, on }) {
      await setInstallationGuardrails(db, off.installationId, {
        credentials: "off",
        card: "off",
        iban: "off",
        email: "off",
        phone: "off",
      });
      await setInstallationGuardrails(db, on.installationId, {
        credentials: "flag",
        card: "redact",
        iban: "redact",
        email: "redact",
        phone: "redact",
      });
    },
  });
}
