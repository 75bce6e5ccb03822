import { scanForGuardrails, type GuardrailScan } from "./scan";
import { guardrailsActive, type GuardrailFinding, type GuardrailSettings, type GuardrailWhere } from "./rules";

/** An installation's guardrail settings, as the app stores them (it should cache them: asked on every call). */
export interface GuardrailSource {
  settings(installationId: string): Promise<GuardrailSettings>;
}

/** What was scanned, for the report (request log, audit trail, metrics) and the caller's message. */
export interface GuardedCall {
  installationId: string;
  instanceId: string;
  /** The installation's slug (metrics label). */
  installation: string;
  userId: string;
  kind: "tool" | "resource" | "prompt";
  /** Upstream name of the tool, or the upstream URI of the resource. */
  target: string;
  where: GuardrailWhere;
}

/** Where findings go besides the request log: the app's audit trail and metrics. Never given the matched values. */
export type GuardrailReport = (call: GuardedCall, findings: readonly GuardrailFinding[]) => void;

/** What the proxy asks before it forwards arguments and before it returns a result or contents. */
export interface GuardrailGate {
  /** Undefined when the value may pass as it is (nothing found, or every category off). */
  scan(call: GuardedCall, value: unknown): Promise<GuardrailScan | undefined>;
}

/**
 * The gate over an installation's settings. A category that is off costs nothing; an installation with every
 * category off is not scanned. Settings that cannot be read (or a scanner that fails) fail open (logged by `onError`): guardrails must not
 * take the route down with them, as quotas do not.
 */
export function guardrailGate(options: {
  source: GuardrailSource;
  report?: GuardrailReport;
  onError?: (error: unknown, call: GuardedCall) => void;
}): GuardrailGate {
  return {
    async scan(call, value) {
      let settings: GuardrailSettings;
      try {
        settings = await options.source.settings(call.installationId);
      } catch (error) {
        options.onError?.(error, call);
        return undefined;
      }
      if (!guardrailsActive(settings)) return undefined;
      let scan: GuardrailScan | undefined;
      try {
        scan = await scanForGuardrails(value, call.where, settings);
      } catch (error) {
        options.onError?.(error, call);
        return undefined;
      }
      if (scan && options.report) {
        try {
          options.report(call, scan.findings);
        } catch (error) {
          options.onError?.(error, call);
        }
      }
      return scan;
    },
  };
}
