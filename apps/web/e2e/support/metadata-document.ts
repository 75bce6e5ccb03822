import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/**
 * A Client ID Metadata Document served for real: over HTTPS, under a public-looking name (the CIMD plugin
 * refuses http, loopback and private hosts before it fetches anything). The name resolves to 127.0.0.1 only in
 * the e2e server's processes (loopback-names.mjs), whose TLS trusts this run's self-signed certificate
 * (NODE_EXTRA_CA_CERTS), so the console fetches the document the way it fetches a real client's.
 */
export const METADATA_HOST = "mcp-client.example.test";

/** Where serve.ts leaves this run's certificate and key (one directory per port, as the database file). */
export function metadataTlsDir(port: string): string {
  return path.join(os.tmpdir(), `switchboard-e2e-cimd-${port}`);
}

/**
 * Creates the run's self-signed certificate for METADATA_HOST and returns what the e2e server's environment
 * needs: the preload that resolves the name, and the certificate to trust.
 */
export function metadataDocumentServerEnv(port: string): Record<string, string> {
  const dir = metadataTlsDir(port);
  mkdirSync(dir, { recursive: true });
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-days",
      "2",
      "-subj",
      `/CN=${METADATA_HOST}`,
      "-addext",
      `subjectAltName=DNS:${METADATA_HOST}`,
      "-keyout",
      path.join(dir, "key.pem"),
      "-out",
      path.join(dir, "cert.pem"),
    ],
    { stdio: "ignore" },
  );
  const preload = pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), "loopback-names.mjs")).href;
  return {
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import=${preload}`.trim(),
    E2E_LOOPBACK_NAMES: METADATA_HOST,
    NODE_EXTRA_CA_CERTS: path.join(dir, "cert.pem"),
  };
}

/**
 * Serves `document(clientId)` at `https://METADATA_HOST:<port>/client.json`, the client's id. Counts the fetches,
 * so a test can tell the console read the document.
 */
export async function startMetadataDocumentServer(
  document: (clientId: string) => Record<string, unknown>,
): Promise<{ clientId: string; fetches: () => number; close: () => Promise<void> }> {
  const dir = metadataTlsDir(process.env.PLAYWRIGHT_PORT ?? "3210");
  let fetches = 0;
  let clientId = "";
  const server = createServer(
    { key: readFileSync(path.join(dir, "key.pem")), cert: readFileSync(path.join(dir, "cert.pem")) },
    (req, res) => {
      if (req.url !== "/client.json") return void res.writeHead(404).end();
      fetches += 1;
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(document(clientId)));
    },
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  clientId = `https://${METADATA_HOST}:${(server.address() as AddressInfo).port}/client.json`;
  return {
    clientId,
    fetches: () => fetches,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
