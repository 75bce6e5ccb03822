import { handleMcpRequest } from "~/server/mcp/handler";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export function POST(req: Request) {
  return handleMcpRequest(req);
}
export function GET(req: Request) {
  return handleMcpRequest(req);
}
export function DELETE(req: Request) {
  return handleMcpRequest(req);
}
