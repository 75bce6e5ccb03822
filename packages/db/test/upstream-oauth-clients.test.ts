import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { disconnectDb, getDb } from "../src/client";
import { createCipher } from "../src/crypto";
import { installationOAuthClients } from "../src/queries/upstream-oauth";
import { makeInstallation, makeTeam, makeUser } from "../src/testing/factories";

afterAll(() => disconnectDb());

async function store() {
  const db = getDb();
  const user = await makeUser(db);
  const team = await makeTeam(db, user);
  const { installation } = await makeInstallation(db, team);
  return installationOAuthClients(db, createCipher(randomBytes(32)), installation.id);
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
