import { randomBytes } from "node:crypto";
import { getAuth } from "~/server/auth";
import { createTRPCContext } from "~/server/trpc/init";
import { createCaller } from "~/server/trpc/root";

/** A real account (Better Auth sign-up) and a tRPC caller carrying its session cookie. */
export async function signedInCaller(label = "user") {
  const email = `${label}-${randomBytes(5).toString("hex")}@example.test`;
  const { headers } = await getAuth().api.signUpEmail({
    body: { email, password: "correct-horse-battery", name: label },
    returnHeaders: true,
  });
  const cookie = headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const requestHeaders = new Headers({ cookie });
  const caller = createCaller(await createTRPCContext({ headers: requestHeaders }));
  const me = await caller.me();
  return { caller, email, userId: me!.id, headers: requestHeaders };
}

export async function anonymousCaller() {
  return createCaller(await createTRPCContext({ headers: new Headers() }));
}
