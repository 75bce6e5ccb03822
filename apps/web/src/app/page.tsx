import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { getDb } from "@switchboard/db/client";
import { listTeamsForUser } from "@switchboard/db/queries/team";
import { getSession } from "~/server/auth";

export const dynamic = "force-dynamic";

/** Where "/" and a sign-in without a destination lead: a person in exactly one team lands in it. */
export default async function Home() {
  const session = await getSession(await headers());
  if (!session) redirect("/sign-in");
  const teams = await listTeamsForUser(getDb(), { userId: session.user.id });
  redirect(teams.length === 1 ? `/t/${teams[0]!.slug}` : "/teams");
}
