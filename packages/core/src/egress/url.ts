import { isIpAddress } from "./address";
import { checkEgressAddress, type EgressDecision, type EgressPolicy } from "./policy";

const LOCALHOST = /(^|\.)localhost\.?$/i;

export function defaultPort(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
}

/**
 * What can be decided from a URL alone, before any DNS lookup: the scheme (http/https), no user name or
 * password (credentials belong in secret fields, not in a URL that is shown and logged), and for an IP literal
 * host the address itself. The WHATWG parser has already turned `2130706433`, `0x7f.1` and `[::ffff:7f00:1]`
 * into the address they mean. `localhost` names are judged as loopback here (they never leave the host).
 * Hosts given by name are checked again at connect time against every address they resolve to.
 */
export function checkEgressUrl(policy: EgressPolicy, input: string | URL): EgressDecision {
  let url: URL;
  try {
    url = typeof input === "string" ? new URL(input) : input;
  } catch {
    return {
      allowed: false,
      message: "This server's URL is not a valid URL; use one like https://mcp.example.com/mcp.",
    };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return {
      allowed: false,
      message: `This server's URL uses ${url.protocol.replace(/:$/, "")}:, but Switchboard only connects to http and https URLs.`,
    };
  }
  if (url.username || url.password) {
    return {
      allowed: false,
      message:
        "This server's URL contains a user name or password, which Switchboard does not send; put credentials in a secret header field instead.",
    };
  }
  const port = defaultPort(url);
  if (isIpAddress(url.hostname)) return checkEgressAddress(policy, { host: url.hostname, port, address: url.hostname });
  if (LOCALHOST.test(url.hostname))
    return checkEgressAddress(policy, { host: url.hostname, port, address: "127.0.0.1" });
  return { allowed: true };
}
