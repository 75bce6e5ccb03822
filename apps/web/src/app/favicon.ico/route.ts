/**
 * Browsers ask for /favicon.ico on pages whose markup they have not read (a 404, a PDF view); the console's
 * icon is the SVG Next serves from app/icon.svg.
 */
export function GET() {
  return new Response(null, {
    status: 308,
    headers: { location: "/icon.svg", "cache-control": "public, max-age=86400" },
  });
}
