import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { disconnectDb, getDb } from "../src/client";
import { createCipher } from "../src/crypto";
import {
  installationOAuthClients,
  loadOAuthTokens,
  recordNeededScope,
  storeOAuthTokens,
} from "../src/queries/upstream-oauth";
import { makeInstallation, makeTeam, makeUser } from "../src/testing/factories";

afterAll(() => disconnectDb());

const cipher = createCipher(randomBytes(32));

async function store() {
  const db = getDb();
  const user = await makeUser(db);
  const team = await makeTeam(db, user);
  const { installation } = await makeInstallation(db, team);
  return installationOAuthClients(db, cipher, installation.id);
}

const AS1 = "https://as-one.example";
const AS2 = "https://as-two.example";

describe("an installation's OAuth client store", () => {
  it("keeps the first registration at an authorization server, not a second member's", async () => {
    const clients = await store();
    await clients.saveClientInformation({ client_id: "first", issuer: AS1 } as never);
    await clients.saveClientInformation({ client_id: "second", issuer: AS1 } as never);
    expect(await clients.clientInformation()).toMatchObject({ client_id: "first" });
  });

  it("takes the registration at a new authorization server when the upstream moved there (keyed by issuer)", async () => {
    const clients = await store();
    await clients.saveClientInformation({ client_id: "as1-client", issuer: AS1 } as never);
    await clients.saveClientInformation({ client_id: "as2-client", issuer: AS2 } as never);
    expect(await clients.clientInformation()).toMatchObject({ client_id: "as2-client", issuer: AS2 });
  });
});

describe("a step-up's needed scope", () => {
  it("is kept without changing the tokens' version, and a new grant clears it", async () => {
    const db = getDb();
    const user = await makeUser(db);
    const team = await makeTeam(db, user);
    const {
      instances: [instance],
    } = await makeInstallation(db, team, [user]);
    const tokens = { accessToken: "at-1", tokenType: "Bearer", scope: "mcp:tools" };
    await storeOAuthTokens(db, cipher, { instanceId: instance!.id, userId: user.id, tokens });
    const before = (await loadOAuthTokens(db, cipher, instance!.id))!;
    await recordNeededScope(db, { instanceId: instance!.id, scope: "mcp:admin" });
    const after = (await loadOAuthTokens(db, cipher, instance!.id))!;
    expect(after.neededScope).toBe("mcp:admin");
    // A refresh that started before compares this version: it must still win, and obtainedAt stays the token's.
    expect(after.version).toEqual(before.version);
    await storeOAuthTokens(db, cipher, { instanceId: instance!.id, userId: user.id, tokens });
    expect((await loadOAuthTokens(db, cipher, instance!.id))!.neededScope).toBeUndefined();
  });
});
