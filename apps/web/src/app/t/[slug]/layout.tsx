import { getDb } from "@switchboard/db/client";
import { isDeploymentOwner } from "@switchboard/db/queries/deployment";
import { isTeamAdminRole } from "@switchboard/core/accounts";
import { approvalsPath } from "@switchboard/core/governance";
import { requireTeam } from "~/server/page-auth";
import { NavLink } from "~/components/nav-link";
import { ApprovalsNavLink } from "~/components/console/approvals-nav-link";
import { ConsoleShell, NavAccount } from "~/components/console-shell";

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
    <ConsoleShell
      navLabel="Team navigation"
      nav={
        <>
          <div className="team-name">{team.name}</div>
          <NavLink href={`/t/${team.slug}`} exact>
            Overview
          </NavLink>
          <NavLink href={`/t/${team.slug}/servers`}>Servers</NavLink>
          <NavLink href={`/t/${team.slug}/my-servers`}>My servers</NavLink>
          <NavLink href={`/t/${team.slug}/catalogue`}>Catalogue</NavLink>
          <NavLink href={`/t/${team.slug}/requests`}>Requests</NavLink>
          <ApprovalsNavLink teamId={team.id} href={approvalsPath(team.slug)} />
          <NavLink href={`/t/${team.slug}/activity`}>Activity</NavLink>
          <NavLink href={`/t/${team.slug}/connect`}>Connect</NavLink>
          <NavLink href={`/t/${team.slug}/members`}>Members</NavLink>
          {isTeamAdminRole(role) && <NavLink href={`/t/${team.slug}/policies`}>Policies</NavLink>}
          {isTeamAdminRole(role) && <NavLink href={`/t/${team.slug}/audit`}>Audit</NavLink>}
          <div className="spacer" />
          {deploymentOwner && <NavLink href="/settings/deployment">Deployment settings</NavLink>}
          <NavAccount who={`${user.name} · ${role}`} />
        </>
      }
    >
      {children}
    </ConsoleShell>
  );
}
