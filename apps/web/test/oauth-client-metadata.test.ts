import { afterEach, describe, expect, it } from "vitest";
import { reloadEnv } from "@switchboard/runtime/env";
import { GET } from "~/app/api/oauth/client-metadata.json/route";

const original = process.env.APP_URL;
afterEach(() => {
  process.env.APP_URL = original;
  reloadEnv();
});

function serveAt(appUrl: string) {
  process.env.APP_URL = appUrl;
  reloadEnv();
  return GET();
}

describe("GET /api/oauth/client-metadata.json (our Client ID Metadata Document)", () => {
  it("names itself as the client id, with the console's callback, as a public web client", async () => {
    const response = serveAt("https://switchboard.example.com");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      client_id: "https://switchboard.example.com/api/oauth/client-metadata.json",
      client_uri: "https://switchboard.example.com",
      client_name: "Switchboard",
      application_type: "web",
      redirect_uris: ["https://switchboard.example.com/api/oauth/callback"],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    });
  });

  it("is not served by a console on http, which cannot be a client id (servers get a registration instead)", async () => {
    const response = serveAt("http://localhost:3000");
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: "This console is not served over https." });
  });
});
