import { installDemoOnline } from "../support/api";
import { expect, test } from "../support/fixtures";
import { startMetadataDocumentServer } from "../support/metadata-document";
import {
  codeOf,
  connectWithOAuth,
  followAuthorization,
  startCallbackListener,
  TestOAuthProvider,
} from "../support/oauth-client";

test("an SDK client identified by a Client ID Metadata Document signs the member in without registering, and calls a tool", async ({
  adminPage,
  memberPage,
  team,
  upstream,
  baseURL,
}) => {
  await installDemoOnline(adminPage.request, memberPage, team, upstream.url);

  // The authorization server says it reads metadata documents, so the SDK sends its URL as the client id.
  const metadata = await (await fetch(`${baseURL}/.well-known/oauth-authorization-server`)).json();
  expect(metadata.client_id_metadata_document_supported).toBe(true);

  const listener = await startCallbackListener();
  const documentServer = await startMetadataDocumentServer((clientId) => ({
    client_id: clientId,
    client_name: "Metadata document client",
    redirect_uris: [listener.url],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  }));
  const provider = new TestOAuthProvider(listener.url, "Metadata document client", documentServer.clientId);
  try {
    const client = await connectWithOAuth(baseURL!, provider, async (url) => {
      expect(url.searchParams.get("client_id")).toBe(documentServer.clientId);
      return codeOf(
        await followAuthorization(memberPage, url, listener, async (p) => {
          await expect(p.getByTestId("oauth-consent")).toBeVisible();
          // The name comes from the document the console fetched, not from anything the client registered.
          await expect(p.getByTestId("consent-client-name")).toHaveText("Metadata document client");
          await p.getByRole("button", { name: "Allow" }).click();
        }),
      );
    });
    try {
      // No registration: the client id is the document's URL, and the console read the document to know it.
      expect(provider.clientInformation()?.client_id).toBe(documentServer.clientId);
      expect(documentServer.fetches()).toBeGreaterThan(0);
      const result = await client.callTool({ name: "demo-echo", arguments: { message: "hello by metadata" } });
      expect(JSON.stringify(result.content)).toContain("hello by metadata");
    } finally {
      await client.close().catch(() => undefined);
    }

    await memberPage.goto(`/t/${team.slug}/connect`);
    await expect(
      memberPage.getByTestId("signed-in-client-row").filter({ hasText: "Metadata document client" }),
    ).toContainText("every tool");
  } finally {
    await documentServer.close();
    await listener.close();
  }
});
