import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A URL that answers every request with a big HTML page (a wrong path, a login proxy): the case whose whole
 * document used to become the status message, table cells and tooltips.
 */
export async function startHtmlServer(): Promise<{ url: string; close(): Promise<void> }> {
  const page = `<!DOCTYPE html><html><head><title>Sign in to Corp Portal</title><style>body{font:14px sans-serif}</style></head><body>${"<div class='banner'>WelcomeToTheCorporatePortalPleaseSignInWithYourSingleSignOnAccountBeforeContinuing</div>".repeat(400)}</body></html>`;
  const server: Server = createServer((_req, res) => {
    res.writeHead(404, { "content-type": "text/html; charset=utf-8" }).end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
