import { Redactor, SecretRegistry } from "@switchboard/core/config";
import type { Db } from "@switchboard/db/client";
import type { Cipher } from "@switchboard/db/crypto";
import { loadInstanceSecretValues } from "@switchboard/db/queries/instance-secrets";

const TTL_MS = 30_000;

/**
 * The secrets in scope for each instance (team and member tiers, OAuth tokens and client secret) as a core
 * `Redactor`, for everything the worker records: status messages, lastError, events, stderr tails. Loading an
 * instance's secrets also teaches the process's log stream (`registry`) those values. Reloaded on every
 * (re)connect and after a token refresh or a configuration change (`forget`), and at most every 30 s otherwise.
 */
export class InstanceSecrets {
  private readonly cache = new Map<string, { redactor: Promise<Redactor>; at: number }>();

  constructor(private readonly deps: { db: Db; cipher: Cipher; registry: SecretRegistry; now?: () => number }) {}

  redactor(instanceId: string): Promise<Redactor> {
    const now = (this.deps.now ?? Date.now)();
    const hit = this.cache.get(instanceId);
    if (hit && now - hit.at < TTL_MS) return hit.redactor;
    if (this.cache.size > 20_000) for (const [id, e] of this.cache) if (now - e.at >= TTL_MS) this.cache.delete(id);
    const redactor = loadInstanceSecretValues(this.deps.db, this.deps.cipher, instanceId).then((values) =>
      this.deps.registry.set(instanceId, values),
    );
    this.cache.set(instanceId, { redactor, at: now });
    redactor.catch(() => this.cache.delete(instanceId));
    return redactor;
  }

  /** The instance's values or tokens changed: the next redaction reloads them. */
  forget(instanceId: string): void {
    this.cache.delete(instanceId);
  }

  /** Reloads now (a connect is about to use the values; its errors and logs must know them). */
  async reload(instanceId: string): Promise<Redactor> {
    this.forget(instanceId);
    return this.redactor(instanceId);
  }

  /** The text without the instance's secrets; `bounded` for a text cut from something longer (a stderr tail). */
  async text(instanceId: string, text: string, opts?: { bounded?: boolean }): Promise<string> {
    return (await this.redactor(instanceId)).text(text, opts);
  }

  async value<T>(instanceId: string, value: T): Promise<T> {
    return (await this.redactor(instanceId)).value(value);
  }
}
