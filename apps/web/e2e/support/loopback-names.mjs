// Preloaded into the e2e server's processes (NODE_OPTIONS=--import): the names listed in E2E_LOOPBACK_NAMES
// (comma-separated) resolve to 127.0.0.1, as a test name in /etc/hosts would, and every other name as usual.
// A Client ID Metadata Document must live at an https URL on a public name (the CIMD plugin refuses loopback
// and private hosts before it fetches), so its spec serves one on this machine under such a name.
import dns from "node:dns";

const names = new Set(
  (process.env.E2E_LOOPBACK_NAMES ?? "")
    .split(",")
    .map((n) => n.trim().toLowerCase())
    .filter(Boolean),
);
const lookup = dns.lookup;

dns.lookup = function loopbackLookup(hostname, options, callback) {
  if (typeof options === "function") [callback, options] = [options, {}];
  if (typeof options === "number") options = { family: options };
  if (!names.has(String(hostname).toLowerCase())) return lookup.call(dns, hostname, options, callback);
  const address = { address: "127.0.0.1", family: 4 };
  process.nextTick(() => (options?.all ? callback(null, [address]) : callback(null, address.address, address.family)));
};
