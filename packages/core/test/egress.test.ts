import type { LookupAddress } from "node:dns";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { OAuthClientInformationMixed } from "@modelcontextprotocol/sdk/shared/auth.js";
import { afterEach, describe, expect, it } from "vitest";
import {
  checkEgressUrl,
  classifyAddress,
  egressRefusalOf,
  egressLookup,
  EgressRefusedError,
  parseEgressAllow,
  STRICT_EGRESS_POLICY,
  type EgressPolicy,
} from "../src/egress";
import { classifyRefreshFailure, startAuthorization, type OAuthClientStore } from "../src/oauth";
import { classifyError } from "../src/policies";
import { createUpstreamTransport, egressFetch } from "../src/upstream";
import { startOAuthMcpServer } from "./fixtures/oauth-mcp-server";
import { startSseServer } from "./fixtures/sse-server";
import { startStreamableHttpServer } from "./fixtures/streamable-http-server";
import { toolsOnlyServer } from "./fixtures/tools-only-server";
import { httpServer } from "./helpers/net";

describe("classifyAddress", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["::1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["64:ff9b::7f00:1", "loopback"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["::", "unspecified"],
    ["169.254.169.254", "metadata"],
    ["fd00:ec2::254", "metadata"],
    ["100.100.100.200", "metadata"],
    ["::ffff:169.254.169.254", "metadata"],
    ["169.254.1.1", "link_local"],
    ["fe80::1", "link_local"],
    ["fe80::1%eth0", "link_local"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "private"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["224.0.0.1", "multicast"],
    ["ff02::1", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["192.0.2.1", "reserved"],
    ["::7f00:1", "reserved"],
    ["2002:7f00:1::", "reserved"],
    ["8.8.8.8", "public"],
    ["172.32.0.1", "public"],
    ["2606:4700::1111", "public"],
  ])("classifies %s as %s", (address, kind) => {
    expect(classifyAddress(address)?.kind).toBe(kind);
  });

  it("answers undefined for a host name or a non-canonical IPv4 form", () => {
    expect(classifyAddress("example.com")).toBeUndefined();
    expect(classifyAddress("2130706433")).toBeUndefined();
  });
});

describe("checkEgressUrl", () => {
  const refused = (url: string, policy: EgressPolicy = STRICT_EGRESS_POLICY) => {
    const decision = checkEgressUrl(policy, url);
    return decision.allowed ? undefined : decision.message;
  };

  it.each([
    ["http://127.0.0.1:5432/", "127.0.0.1 is on this host's loopback network"],
    ["http://[::1]:6379/", "::1 is on this host's loopback network"],
    ["http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a cloud instance-metadata address"],
    ["http://[fd00:ec2::254]/", "fd00:ec2::254 is a cloud instance-metadata address"],
    ["http://2130706433/", "127.0.0.1 is on this host's loopback network"],
    ["http://0x7f.1/", "127.0.0.1 is on this host's loopback network"],
    ["http://0.0.0.0/", "0.0.0.0 is an address for this host itself"],
    ["http://[::ffff:127.0.0.1]/", "127.0.0.1 is on this host's loopback network"],
    ["http://localhost:7410/", "localhost (127.0.0.1) is on this host's loopback network"],
    ["http://api.localhost/", "api.localhost (127.0.0.1) is on this host's loopback network"],
    ["http://10.0.0.8/mcp", "10.0.0.8 is on a private network"],
    ["http://user:pass@mcp.example.com/", "contains a user name or password"],
    ["http://token@mcp.example.com/", "contains a user name or password"],
    ["file:///etc/passwd", "only connects to http and https URLs"],
    ["not a url", "is not a valid URL"],
  ])("refuses %s with a sentence that says why", (url, why) => {
    expect(refused(url)).toContain(why);
  });

  it("says how an operator can allow a refused address, naming the exact entry to add", () => {
    expect(refused("http://127.0.0.1:3001/mcp")).toBe(
      "This server's address 127.0.0.1 is on this host's loopback network, which Switchboard does not connect to. An operator can allow it by adding 127.0.0.1:3001 to EGRESS_ALLOW.",
    );
    expect(refused("http://10.0.0.8/mcp")).toContain("EGRESS_ALLOW_PRIVATE");
  });

  it("allows public addresses, names (checked again at connect time), private ranges when allowed, and named exceptions", () => {
    expect(refused("https://mcp.example.com/mcp")).toBeUndefined();
    expect(refused("https://8.8.8.8/mcp")).toBeUndefined();
    expect(refused("http://10.0.0.8/mcp", { allowPrivate: true, allow: [] })).toBeUndefined();
    expect(refused("http://[fd12::1]/mcp", { allowPrivate: true, allow: [] })).toBeUndefined();
    const demo = { allowPrivate: false, allow: parseEgressAllow("127.0.0.1:3001") };
    expect(refused("http://127.0.0.1:3001/mcp", demo)).toBeUndefined();
    expect(refused("http://2130706433:3001/mcp", demo)).toBeUndefined();
    expect(refused("http://127.0.0.1:3002/mcp", demo)).toContain("loopback");
    expect(refused("http://localhost:3001/mcp", demo)).toContain("loopback");
  });

  it("keeps metadata, loopback and link-local refused when private networks are allowed", () => {
    const open = { allowPrivate: true, allow: [] };
    expect(refused("http://169.254.169.254/", open)).toContain("metadata");
    expect(refused("http://[fd00:ec2::254]/", open)).toContain("metadata");
    expect(refused("http://127.0.0.1/", open)).toContain("loopback");
    expect(refused("http://[fe80::1]/", open)).toContain("link-local");
    expect(refused("http://0.0.0.0/", open)).toContain("for this host itself");
  });
});

describe("parseEgressAllow", () => {
  it("reads host:port entries, IPv6 in brackets and any-port entries", () => {
    expect(parseEgressAllow(" 127.0.0.1:3001, [::1]:8080 ,MCP.Internal.:*")).toEqual([
      { host: "127.0.0.1", port: 3001 },
      { host: "::1", port: 8080 },
      { host: "mcp.internal", port: "*" },
    ]);
    expect(parseEgressAllow("")).toEqual([]);
    expect(parseEgressAllow(undefined)).toEqual([]);
  });

  it.each(["127.0.0.1", "::1:80", "host:0", "host:70000", "http://host:80"])(
    "refuses %s, naming the entry",
    (entry) => {
      expect(() => parseEgressAllow(entry)).toThrow(`"${entry}" is not host:port`);
    },
  );
});

describe("egressLookup", () => {
  const resolver = (addresses: LookupAddress[]) =>
    ((_host: string, _options: unknown, callback: (err: Error | null, addresses: LookupAddress[]) => void) =>
      callback(null, addresses)) as unknown as typeof import("node:dns").lookup;
  const lookup = (addresses: LookupAddress[], all = true) =>
    new Promise<{ err: Error | null; result: unknown }>((resolve) =>
      egressLookup(
        STRICT_EGRESS_POLICY,
        "rebind.example",
        443,
        resolver(addresses),
      )("rebind.example", { all }, (err, result) => resolve({ err, result })),
    );

  it("refuses a name when any address it resolves to is refused, so a rebinding answer cannot slip one in", async () => {
    const { err } = await lookup([
      { address: "93.184.215.14", family: 4 },
      { address: "127.0.0.1", family: 4 },
    ]);
    expect(err).toBeInstanceOf(EgressRefusedError);
    expect(err?.message).toContain("rebind.example (127.0.0.1) is on this host's loopback network");
  });

  it("hands public addresses on in the shape the caller asked for", async () => {
    expect((await lookup([{ address: "93.184.215.14", family: 4 }])).result).toEqual([
      { address: "93.184.215.14", family: 4 },
    ]);
    expect((await lookup([{ address: "93.184.215.14", family: 4 }], false)).result).toBe("93.184.215.14");
  });
});

describe("egressFetch", () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  async function serve(handler: Parameters<typeof httpServer>[0]) {
    const server = await httpServer(handler);
    closers.push(server.close);
    return { ...server, port: Number(new URL(server.url).port) };
  }

  it("refuses a loopback server before sending anything, and reaches it once it is a named exception", async () => {
    let requests = 0;
    const server = await serve((_req, res) => void (requests++, res.end("secret body")));
    const error = await egressFetch(STRICT_EGRESS_POLICY)(`${server.url}/x`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EgressRefusedError);
    expect(requests).toBe(0);
    const allowed = egressFetch({ allowPrivate: false, allow: [{ host: "127.0.0.1", port: server.port }] });
    expect(await (await allowed(`${server.url}/x`)).text()).toBe("secret body");
  });

  /** A hosts-style resolver we control: names map to addresses, like /etc/hosts or an attacker's DNS. */
  const hosts = (table: Record<string, string>) =>
    ((host: string, _options: unknown, callback: (err: Error | null, addresses: LookupAddress[]) => void) =>
      table[host]
        ? callback(null, [{ address: table[host]!, family: 4 }])
        : callback(
            Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" }),
            [],
          )) as unknown as typeof import("node:dns").lookup;

  // What this proves: the address checked is the one the socket connects to (the lookup runs on the socket
  // path, for every new connection). A name that resolves to loopback, whatever it resolved to earlier, is
  // refused before a byte is sent; the same name allowed by an exception reaches the server the resolver named.
  it("refuses a host name whose resolved address is loopback, at connect time", async () => {
    let requests = 0;
    const server = await serve((_req, res) => void (requests++, res.end("secret body")));
    const resolve = hosts({ "rebound.test": "127.0.0.1" });
    const url = `http://rebound.test:${server.port}/x`;
    expect(checkEgressUrl(STRICT_EGRESS_POLICY, url).allowed).toBe(true);
    const error = await egressFetch(STRICT_EGRESS_POLICY, { resolve })(url).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EgressRefusedError);
    expect((error as Error).message).toContain("rebound.test (127.0.0.1) is on this host's loopback network");
    expect(requests).toBe(0);
    const named = egressFetch(
      { allowPrivate: false, allow: [{ host: "rebound.test", port: server.port }] },
      { resolve },
    );
    expect(await (await named(url)).text()).toBe("secret body");
  });

  it("refuses localhost through the system resolver", async () => {
    const server = await serve((_req, res) => void res.end("secret body"));
    const error = await egressFetch(STRICT_EGRESS_POLICY)(`http://localhost:${server.port}/x`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EgressRefusedError);
  });

  it("follows a redirect only after checking where it leads", async () => {
    const target = await serve((_req, res) => void res.end("internal"));
    const redirector = await serve(
      (_req, res) => void res.writeHead(302, { location: `http://[::1]:${target.port}/admin` }).end(),
    );
    const fetchImpl = egressFetch({ allowPrivate: false, allow: [{ host: "127.0.0.1", port: redirector.port }] });
    const error = await fetchImpl(`${redirector.url}/start`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EgressRefusedError);
    expect((error as Error).message).toContain("::1 is on this host's loopback network");
    const manual = await fetchImpl(`${redirector.url}/start`, { redirect: "manual" });
    expect(manual.status).toBe(302);
  });

  it("follows an allowed redirect, turning a POST into a GET on 303 and dropping credentials across origins", async () => {
    const seen: { method?: string; auth?: string }[] = [];
    const target = await serve(
      (req, res) => void (seen.push({ method: req.method, auth: req.headers.authorization }), res.end("landed")),
    );
    const redirector = await serve(
      (_req, res) => void res.writeHead(303, { location: `http://127.0.0.1:${target.port}/done` }).end(),
    );
    const fetchImpl = egressFetch({ allowPrivate: false, allow: [{ host: "127.0.0.1", port: "*" }] });
    const response = await fetchImpl(`${redirector.url}/form`, {
      method: "POST",
      headers: { authorization: "Bearer t" },
      body: new URLSearchParams({ a: "1" }),
    });
    expect(await response.text()).toBe("landed");
    expect(seen).toEqual([{ method: "GET", auth: undefined }]);
  });

  it("sends URLSearchParams bodies (OAuth token requests) with their form content type", async () => {
    let got = "";
    const server = await serve((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => void ((got = `${req.headers["content-type"]} ${body}`), res.end("ok")));
    });
    const fetchImpl = egressFetch({ allowPrivate: false, allow: [{ host: "127.0.0.1", port: server.port }] });
    await fetchImpl(`${server.url}/token`, { method: "POST", body: new URLSearchParams({ grant_type: "x" }) });
    expect(got).toBe("application/x-www-form-urlencoded;charset=UTF-8 grant_type=x");
  });
});

describe("MCP transports with the egress fetch", () => {
  const stops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });

  it.each([
    ["streamable_http", startStreamableHttpServer],
    ["sse", startSseServer],
  ] as const)(
    "refuses a %s server on loopback with the policy's sentence, classified as a configuration error",
    async (transport, start) => {
      const fixture = await start(toolsOnlyServer());
      stops.push(() => fixture.stop());
      const url = `http://localhost:${fixture.port}${transport === "sse" ? "/sse" : "/mcp"}`;
      const client = new Client({ name: "t", version: "0" });
      const error = await createUpstreamTransport(
        { transport, url, headers: {} },
        { fetch: egressFetch(STRICT_EGRESS_POLICY) },
      )
        .then((t) => client.connect(t))
        .catch((e: unknown) => e);
      await client.close();
      expect(fixture.requests).toHaveLength(0);
      const classified = classifyError(error);
      expect(classified).toMatchObject({ status: "error", retryable: false, kind: "egress_refused" });
      expect(classified.message).toBe(
        `This server's address localhost (127.0.0.1) is on this host's loopback network, which Switchboard does not connect to. An operator can allow it by adding localhost:${fixture.port} to EGRESS_ALLOW.`,
      );
    },
  );

  it("applies the default rules to a transport given no fetch", async () => {
    const fixture = await startStreamableHttpServer(toolsOnlyServer());
    stops.push(() => fixture.stop());
    const client = new Client({ name: "t", version: "0" });
    const error = await createUpstreamTransport({ transport: "streamable_http", url: fixture.url("/mcp"), headers: {} })
      .then((t) => client.connect(t))
      .catch((e: unknown) => e);
    await client.close();
    expect(classifyError(error).kind).toBe("egress_refused");
    expect(fixture.requests).toHaveLength(0);
  });

  it("connects to an allowed server and lists its tools", async () => {
    const fixture = await startStreamableHttpServer(toolsOnlyServer());
    stops.push(() => fixture.stop());
    const client = new Client({ name: "t", version: "0" });
    const policy = { allowPrivate: false, allow: [{ host: "127.0.0.1", port: fixture.port }] };
    await client.connect(
      await createUpstreamTransport(
        { transport: "streamable_http", url: fixture.url("/mcp"), headers: {} },
        { fetch: egressFetch(policy) },
      ),
    );
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["only"]);
    await client.close();
  });
});

describe("OAuth endpoints named by the upstream", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  const clients = (): OAuthClientStore => {
    let info: OAuthClientInformationMixed | undefined;
    return {
      clientInformation: async () => info,
      saveClientInformation: async (next) => void (info ??= next),
      forgetClientInformation: async () => void (info = undefined),
    };
  };
  const portOf = (url: string) => Number(new URL(url).port);

  it("refuses an authorization server the allowed MCP server points at on loopback", async () => {
    const server = await startOAuthMcpServer();
    cleanups.push(() => server.close());
    const onlyTheServer = egressFetch({
      allowPrivate: false,
      allow: [{ host: "127.0.0.1", port: portOf(server.mcpUrl) }],
    });
    const error = await startAuthorization({
      serverUrl: server.mcpUrl,
      clients: clients(),
      redirectUrl: "https://console.example/cb",
      fetch: onlyTheServer,
    }).catch((e: unknown) => e);
    expect(egressRefusalOf(error)?.message).toContain(
      `127.0.0.1 is on this host's loopback network, which Switchboard does not connect to. An operator can allow it by adding 127.0.0.1:${portOf(server.issuerUrl)} to EGRESS_ALLOW.`,
    );
    expect(server.authServer.stats.registrations).toBe(0);
  });

  it("stops a token refresh refused by the egress rules with the reason, instead of retrying it forever", () => {
    const refused = new EgressRefusedError(
      "This server's address 10.0.0.9 is on a private network, which Switchboard does not connect to.",
    );
    expect(classifyRefreshFailure(new Error("fetch failed", { cause: refused }))).toEqual({
      kind: "reauth",
      message: refused.message,
    });
  });

  it("runs discovery, registration and the authorization URL through the checked fetch when both are allowed", async () => {
    const server = await startOAuthMcpServer();
    cleanups.push(() => server.close());
    const both = egressFetch({
      allowPrivate: false,
      allow: [
        { host: "127.0.0.1", port: portOf(server.mcpUrl) },
        { host: "127.0.0.1", port: portOf(server.issuerUrl) },
      ],
    });
    const started = await startAuthorization({
      serverUrl: server.mcpUrl,
      clients: clients(),
      redirectUrl: "https://console.example/cb",
      fetch: both,
    });
    expect(new URL(started.authorizationUrl).origin).toBe(new URL(server.issuerUrl).origin);
    expect(server.authServer.stats.registrations).toBe(1);
  });
});
