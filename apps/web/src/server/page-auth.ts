import "server-only";
import { headers } from "next/headers";
import { notFound, redirect } from "next/navigation";
import { cache } from "react";
import { getDb } from "@switchboard/db/client";
import { findTeamBySlugForMember } from "@switchboard/db/queries/team";
import { getSession } from "./auth";
import { REQUESTED_PATH_HEADER, returnPath } from "./requested-path";

/** For server components: the signed-in user, or a redirect to sign-in that comes back here. */
export const requireUser = cache(async (returnTo: string) => {
  const session = await getSession(await headers());
  if (!session) redirect(`/sign-in?next=${encodeURIComponent(returnTo)}`);
  return session.user;
});

/** The team for a page, or a 404 when the user is not a member (the team's existence is not revealed). */
export const requireTeam = cache(async (slug: string) => {
  // A deep link (an approval page an MCP client opened) comes back to itself after sign-in.
  const user = await requireUser(returnPath((await headers()).get(REQUESTED_PATH_HEADER), `/t/${slug}`));
  const found = await findTeamBySlugForMember(getDb(), { slug, userId: user.id });
  if (!found) notFound();
  return { user, team: found.team, role: found.role };
});
