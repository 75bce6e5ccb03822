import { handleMcpRequest } from "~/server/mcp/handler";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Ctx = { params: Promise<{ slug: string }> };

export async function POST(req: Request, { params }: Ctx) {
  return handleMcpRequest(req, (await params).slug);
}
export async function GET(req: Request, { params }: Ctx) {
  return handleMcpRequest(req, (await params).slug);
}
export async function DELETE(req: Request, { params }: Ctx) {
  return handleMcpRequest(req, (await params).slug);
}
