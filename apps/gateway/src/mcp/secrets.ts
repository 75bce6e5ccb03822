import type { Redactor } from "@switchboard/core/config";
import { getDb } from "@switchboard/db/client";
import { getCipher } from "@switchboard/db/crypto";
import { loadInstanceSecretValues } from "@switchboard/db/queries/instance-secrets";
import { logSecrets } from "@switchboard/runtime/logger";

const cache = new Map<string, { redactor: Promise<Redactor>; at: number }>();
const TTL_MS = 60_000;

/**
 * The redactor of an instance's secrets (team and member tiers, OAuth tokens and client secret), cached
 * briefly; `forgetSecrets` drops it when the configuration changes. Loading it also teaches this process's log
 * stream those values, so a log line that carries one (an upstream's error, a body) is redacted too.
 */
export function instanceRedactor(instanceId: string): Promise<Redactor> {
  const now = Date.now();
  const hit = cache.get(instanceId);
  if (hit && now - hit.at < TTL_MS) return hit.redactor;
  if (cache.size > 10_000) for (const [id, e] of cache) if (now - e.at >= TTL_MS) cache.delete(id);
  const redactor = loadInstanceSecretValues(getDb(), getCipher(), instanceId).then((values) =>
    logSecrets.set(instanceId, values),
  );
  cache.set(instanceId, { redactor, at: now });
  redactor.catch(() => cache.delete(instanceId));
  return redactor;
}

/** The instance's configuration or tokens changed: the next redaction loads them again. */
export function forgetSecrets(instanceId: string): void {
  cache.delete(instanceId);
}
