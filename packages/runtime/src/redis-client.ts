import { RedisConnection, createIORedisClient, type RedisOptions } from "bullmq";
import { Cluster, Redis, type ClusterOptions, type RedisOptions as IORedisOptions } from "ioredis";
import type { Logger } from "pino";
import { redisConnectionFromUrl, type RedisConnectionFields } from "@switchboard/core/contracts";
import { backoffDelay, type BackoffOptions } from "@switchboard/core/policies";

/**
 * The one place that creates Redis connections: plain clients (`createRedis`) and BullMQ's (`queueConnection`).
 * REDIS_URL says which kind of Redis it is (see core's `redisConnectionFromUrl`): one server, or a Redis Cluster
 * (`redis+cluster://`), over TLS with `rediss`. A private certificate authority comes from Node's own
 * `NODE_EXTRA_CA_CERTS`, which every TLS connection of the process (Redis and PostgreSQL alike) trusts.
 */

/** A client of either kind; both run the same commands (on a cluster, each multi-key one within one slot). */
export type RedisClient = Redis | Cluster;

/** Keep reconnecting forever with a capped delay: Redis restarting must not need a process restart. */
const REDIS_RECONNECT: BackoffOptions = { baseMs: 200, maxMs: 5_000, growth: "linear" };
const retryStrategy = (times: number) => backoffDelay(REDIS_RECONNECT, times - 1);

/** True for a client of a Redis Cluster (ioredis marks its `Cluster` so). */
export function isCluster(client: RedisClient): client is Cluster {
  return (client as { isCluster?: boolean }).isCluster === true;
}

/**
 * A cluster client from the URL's node. Node options (credentials, TLS, retries per command) go to every node;
 * with TLS, the nodes are reached by the names the cluster announces (not resolved to addresses first), so their
 * certificates match, as managed services (ElastiCache, Memorystore) need. `shardedSubscribers` opens a subscriber
 * per master for SSUBSCRIBE (see live-events: a process's own channels are sharded on a cluster).
 */
function clusterClient(
  fields: RedisConnectionFields,
  node: Omit<IORedisOptions, "host" | "port" | "retryStrategy" | "db">,
  extra: Partial<ClusterOptions> = {},
): Cluster {
  const { host, port, username, password, tls } = fields;
  return new Cluster([{ host, port }], {
    clusterRetryStrategy: retryStrategy,
    ...(tls ? { dnsLookup: (address, callback) => callback(null, address) } : {}),
    ...extra,
    redisOptions: { ...node, username, password, tls },
  });
}

/**
 * A plain client the caller owns and quits (commands, pub/sub, locks, leases). ioredis reconnects by itself and
 * emits an error on every failed attempt; without a listener that would crash the process. Errors are logged,
 * not swallowed: the first of an outage as a warning (later attempts at debug, so a long outage does not flood
 * the log), and the recovery once the connection is ready again.
 */
export function createRedis(
  url: string,
  opts: { name: string; logger: Pick<Logger, "warn" | "debug" | "info"> },
): RedisClient {
  const fields = redisConnectionFromUrl(url);
  const common = { maxRetriesPerRequest: 3, connectionName: `switchboard-${opts.name}` };
  const client: RedisClient = fields.cluster
    ? clusterClient(fields, common, { shardedSubscribers: true })
    : new Redis(url, { ...common, retryStrategy });
  let down = false;
  client.on("error", (err: Error) => {
    const fields = { redis: opts.name, err: { message: err.message, code: (err as NodeJS.ErrnoException).code } };
    if (down) {
      opts.logger.debug(fields, "Redis still unreachable; reconnecting");
      return;
    }
    down = true;
    opts.logger.warn(fields, "Redis connection failed; reconnecting");
  });
  client.on("ready", () => {
    if (!down) return;
    down = false;
    opts.logger.info({ redis: opts.name }, "Redis connection restored");
  });
  return client;
}

/** Marks BullMQ connection options that name a cluster node (see `bullmqClients`). */
const CLUSTER_NODE = "switchboardClusterNode";

/**
 * BullMQ creates its connections from plain options, and only as single-server clients; handed a client instead,
 * it leaves that client open when the queue closes. So BullMQ keeps creating (and closing) its own connections,
 * through this factory: options marked as a cluster node become a cluster client. Installed once, the first time
 * a cluster URL is used; everything else is created as BullMQ would (ioredis from the options).
 */
function bullmqClients(): void {
  if (RedisConnection.clientFactory) return;
  RedisConnection.clientFactory = (options) => {
    const { [CLUSTER_NODE]: node, host: _host, port: _port, db: _db, retryStrategy: _r, ...rest } = options;
    if (!node) return createIORedisClient(new Redis(options as IORedisOptions));
    return createIORedisClient(clusterClient(node as RedisConnectionFields, rest as IORedisOptions));
  };
}

/**
 * BullMQ connection options from REDIS_URL. BullMQ creates (and closes) its own clients from these;
 * workers get `maxRetriesPerRequest: null` (blocking commands must wait through a Redis restart, not fail),
 * producers fail a command after a few retries instead of hanging the request that queued it.
 */
export function queueConnection(url: string, role: "producer" | "worker", processName: string): RedisOptions {
  const { cluster, ...fields } = redisConnectionFromUrl(url);
  const options: RedisOptions = {
    ...fields,
    maxRetriesPerRequest: role === "worker" ? null : 3,
    retryStrategy,
    connectionName: `switchboard-${processName}-${role}`,
  };
  if (!cluster) return options;
  bullmqClients();
  return { ...options, [CLUSTER_NODE]: { ...fields, cluster } };
}
