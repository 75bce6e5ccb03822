import dns from "node:dns";
import type { LookupFunction } from "node:net";
import { EgressRefusedError } from "./errors";
import { checkEgressAddress, type EgressPolicy } from "./policy";

/**
 * A `lookup` for Node's net/http/https that resolves `host` as usual and refuses the connection unless every
 * address it resolved to passes the policy. The socket connects to one of exactly these addresses, so a name
 * that resolves to a public address when a URL is saved and to 127.0.0.1 when we connect (DNS rebinding) is
 * refused at connect time. IP literal hosts never reach a lookup: check those with `checkEgressUrl` first.
 */
export function egressLookup(
  policy: EgressPolicy,
  host: string,
  port: number,
  resolve: typeof dns.lookup = dns.lookup,
): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "", 0);
      const list = addresses as unknown as dns.LookupAddress[];
      for (const { address } of list) {
        const decision = checkEgressAddress(policy, { host, port, address });
        if (!decision.allowed)
          return callback(new EgressRefusedError(decision.message) as NodeJS.ErrnoException, "", 0);
      }
      if (list.length === 0)
        return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), "", 0);
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}
