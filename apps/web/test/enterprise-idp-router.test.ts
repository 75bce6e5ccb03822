import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { makeUser } from "@switchboard/db/testing";
import { signedInCaller } from "./support/caller";

/**
 * Enterprise identity providers for ID-JAG, as a deployment owner manages them in the console: added disabled,
 * tested by fetching their JWKS (served here over HTTP), enabled, changed and removed, each in the audit trail.
 */

let jwks: Server;
let jwksBase: string;

beforeAll(async () => {
  await makeUser(getDb(), { deploymentOwner: true });
  jwks = createServer((req, res) => {
    if (req.url === "/keys")
      return void res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ keys: [{ kty: "EC", crv: "P-256", x: "x", y: "y", kid: "a" }] }));
    if (req.url === "/empty") return void res.writeHead(200).end(JSON.stringify({ keys: [] }));
    if (req.url === "/html") return void res.writeHead(200).end("<html>sign in</html>");
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => jwks.listen(0, "127.0.0.1", resolve));
  jwksBase = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => jwks.close(resolve));
  await disconnectDb();
});

const unique = () => Math.random().toString(36).slice(2, 8);

async function owner() {
  const o = await signedInCaller("owner");
  await getDb().user.update({ where: { id: o.userId }, data: { deploymentOwner: true } });
  return o;
}

describe("enterpriseIdp router", () => {
  it("adds a provider disabled, tests its JWKS, enables it, and records each change", async () => {
    const { caller, userId } = await owner();
    const issuer = `https://idp-${unique()}.example/`;
    const added = await caller.enterpriseIdp.add({
      name: "Acme Okta",
      issuer,
      jwksUrl: `${jwksBase}/keys`,
      memberClaim: "sub",
      accountProviderId: "okta",
    });
    expect(added).toMatchObject({ issuer, enabled: false, accountProviderId: "okta" });
    expect(await caller.enterpriseIdp.test({ issuerId: added.id })).toEqual({
      ok: true,
      keys: 1,
      message: "The JWKS answered with 1 signing key.",
      detail: null,
    });
    expect(await caller.enterpriseIdp.setEnabled({ issuerId: added.id, enabled: true })).toMatchObject({
      enabled: true,
    });
    // Naming the member by email needs the domains the provider owns, and drops the linked-account provider id,
    // which only `sub` uses.
    const byEmail = {
      issuerId: added.id,
      name: "Acme Okta",
      issuer,
      jwksUrl: `${jwksBase}/keys`,
      memberClaim: "email" as const,
      accountProviderId: "okta",
    };
    await expect(caller.enterpriseIdp.update(byEmail)).rejects.toThrow(
      "Email domains: Enter at least one email domain, such as example.com.",
    );
    await expect(caller.enterpriseIdp.update({ ...byEmail, emailDomains: "acme.com, not a domain" })).rejects.toThrow(
      /is not an email domain/,
    );
    expect(
      await caller.enterpriseIdp.update({ ...byEmail, emailDomains: "Acme.com, @acme.co.uk acme.com" }),
    ).toMatchObject({
      memberClaim: "email",
      accountProviderId: null,
      enabled: true,
      emailDomains: ["acme.com", "acme.co.uk"],
    });
    await caller.enterpriseIdp.remove({ issuerId: added.id });
    expect((await caller.enterpriseIdp.list()).find((i) => i.id === added.id)).toBeUndefined();

    const trail = await getDb().auditEvent.findMany({
      where: { actorId: userId, targetId: added.id },
      orderBy: { createdAt: "asc" },
    });
    expect(trail.map((r) => [r.action, r.targetType])).toEqual([
      ["enterpriseIdp.add", null],
      ["enterpriseIdp.setEnabled", "enterprise_idp"],
      ["enterpriseIdp.update", "enterprise_idp"],
      ["enterpriseIdp.remove", "enterprise_idp"],
    ]);
    // The trail shows what changed: the provider before and after, named.
    expect(trail[1]).toMatchObject({
      targetLabel: "Acme Okta",
      before: expect.objectContaining({ enabled: false, issuer }),
      after: expect.objectContaining({ enabled: true }),
    });
  });

  it("answers a JWKS that cannot serve as one in a sentence, and refuses a second provider with the same issuer", async () => {
    const { caller } = await owner();
    const issuer = `https://idp-${unique()}.example/`;
    const base = { name: "Acme", issuer, memberClaim: "sub" as const, accountProviderId: null };
    const html = await caller.enterpriseIdp.add({ ...base, jwksUrl: `${jwksBase}/html` });
    expect(await caller.enterpriseIdp.test({ issuerId: html.id })).toMatchObject({
      ok: false,
      message: "The JWKS could not be fetched or read.",
    });
    await caller.enterpriseIdp.update({ ...base, issuerId: html.id, jwksUrl: `${jwksBase}/empty` });
    expect(await caller.enterpriseIdp.test({ issuerId: html.id })).toMatchObject({
      ok: false,
      message: "The JWKS publishes no keys: no assertion could verify.",
    });
    await caller.enterpriseIdp.update({ ...base, issuerId: html.id, jwksUrl: `${jwksBase}/missing` });
    expect(await caller.enterpriseIdp.test({ issuerId: html.id })).toMatchObject({
      ok: false,
      detail: "The JWKS URL answered HTTP 404.",
    });
    await expect(caller.enterpriseIdp.add({ ...base, jwksUrl: `${jwksBase}/keys` })).rejects.toMatchObject({
      code: "CONFLICT",
      message: "Another identity provider already has this issuer URL.",
    });
  });
});
