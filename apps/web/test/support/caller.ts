import { randomBytes } from "node:crypto";
import { getDb } from "@switchboard/db/client";
import { getAuth } from "~/server/auth";
import { createTRPCContext } from "~/server/trpc/init";
import { createCaller } from "~/server/trpc/root";

export const TEST_PASSWORD = "correct-horse-battery";

/** The session cookie of a sign-in, as a browser would send it back. */
export async function signIn(email: string, password = TEST_PASSWORD): Promise<Headers> {
  const { headers } = await getAuth().api.signInEmail({ body: { email, password }, returnHeaders: true });
  const cookie = headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  return new Headers({ cookie });
}

/**
 * A real account (Better Auth sign-up, then sign-in as the console does) and a tRPC caller carrying its session
 * cookie. The address counts as confirmed unless `verified: false` (the confirmation mail is tested on its own).
 */
export async function signedInCaller(label = "user", { verified = true }: { verified?: boolean } = {}) {
  const email = `${label}-${randomBytes(5).toString("hex")}@example.test`;
  await getAuth().api.signUpEmail({ body: { email, password: TEST_PASSWORD, name: label } });
  if (verified) await getDb().user.update({ where: { email }, data: { emailVerified: true } });
  const requestHeaders = await signIn(email);
  const caller = createCaller(await createTRPCContext({ headers: requestHeaders }));
  const me = await caller.me();
  return { caller, email, userId: me!.id, headers: requestHeaders };
}

export async function anonymousCaller() {
  return createCaller(await createTRPCContext({ headers: new Headers() }));
}
