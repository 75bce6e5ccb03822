import { clientMetadataDocument, clientMetadataUrlFor } from "@switchboard/core/oauth";
import { env } from "@switchboard/runtime/env";
import { callbackUrl } from "~/server/oauth/flow.service";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * Our Client ID Metadata Document: authorization servers that accept one (`client_id_metadata_document_supported`)
 * fetch it to learn who the client id `https://<console>/api/oauth/client-metadata.json` is, instead of a dynamic
 * registration per installation. Only an https console can be such a client id; on http the route answers 404 and
 * every server gets a registration.
 */
export function GET(): Response {
  const appUrl = env().APP_URL;
  const url = clientMetadataUrlFor(appUrl);
  if (!url) return Response.json({ error: "This console is not served over https." }, { status: 404 });
  return Response.json(clientMetadataDocument({ url, redirectUrl: callbackUrl(), appUrl }), {
    headers: { "cache-control": "public, max-age=3600" },
  });
}
