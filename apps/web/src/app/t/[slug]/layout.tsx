import { getDb } from "@switchboard/db/client";
import { isDeploymentOwner } from "@switchboard/db/queries/deployment";
import { requireTeam } from "~/server/page-auth";
import { NavLink } from "~/components/nav-link";
import { SignOutButton } from "~/components/sign-out-button";
import { TeamNav } from "~/components/team-nav";

export const dynamic = "force-dynamic";

export default async function TeamLayout({
  children,
  params,
}: {
  children: React.ReactNode;
  params: Promise<{ slug: string }>;
}) {
  const { slug } = await params;
  const { team, user, role } = await requireTeam(slug);
  const deploymentOwner = await isDeploymentOwner(getDb(), user.id);
  return (
    <div className="shell">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <TeamNav>
        <div className="team-name">{team.name}</div>
        <NavLink href={`/t/${team.slug}`} exact>
          Overview
        </NavLink>
        <NavLink href={`/t/${team.slug}/servers`}>Servers</NavLink>
        <NavLink href={`/t/${team.slug}/my-servers`}>My servers</NavLink>
        <NavLink href={`/t/${team.slug}/catalogue`}>Catalogue</NavLink>
        <NavLink href={`/t/${team.slug}/requests`}>Requests</NavLink>
        <NavLink href={`/t/${team.slug}/connect`}>Connect</NavLink>
        <NavLink href={`/t/${team.slug}/members`}>Members</NavLink>
        <div className="spacer" />
        {deploymentOwner && <NavLink href="/settings/deployment">Deployment settings</NavLink>}
        <div className="muted" style={{ padding: "0 .6rem" }}>
          {user.name} · {role}
        </div>
        <NavLink href="/account">Account</NavLink>
        <SignOutButton />
      </TeamNav>
      <main className="content" id="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
