import { handleScim } from "~/server/scim/handler";

/** SCIM 2.0 for identity providers (docs/scim.md); the handler authenticates and answers every request itself. */
export const dynamic = "force-dynamic";

export const GET = handleScim;
export const POST = handleScim;
export const PUT = handleScim;
export const PATCH = handleScim;
export const DELETE = handleScim;
