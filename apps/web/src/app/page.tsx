import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { getSession } from "~/server/auth";

export const dynamic = "force-dynamic";

export default async function Home() {
  const session = await getSession(await headers());
  redirect(session ? "/teams" : "/sign-in");
}
