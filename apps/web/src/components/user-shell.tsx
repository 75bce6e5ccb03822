import { getDb } from "@switchboard/db/client";
import { isDeploymentOwner } from "@switchboard/db/queries/deployment";
import { listTeamsForUser } from "@switchboard/db/queries/team";
import { ConsoleShell, NavAccount } from "./console-shell";
import { NavLink } from "./nav-link";

/**
 * The shell of the pages outside a team (Your teams, Account, Deployment settings and audit): the same sidebar as
 * a team's pages, listing the viewer's teams, the deployment's pages for its owners, and the account.
 */
export async function UserShell({
  user,
  children,
}: {
  user: { id: string; name: string; email: string };
  children: React.ReactNode;
}) {
  const db = getDb();
  const [teams, deploymentOwner] = await Promise.all([
    listTeamsForUser(db, { userId: user.id }),
    isDeploymentOwner(db, user.id),
  ]);
  return (
    <ConsoleShell
      navLabel="Account navigation"
      nav={
        <>
          <NavLink href="/teams" exact>
            Your teams
          </NavLink>
          {teams.length > 0 && <div className="team-name">Teams</div>}
          {teams.map((t) => (
            <NavLink key={t.id} href={`/t/${t.slug}`}>
              {t.name}
            </NavLink>
          ))}
          <div className="spacer" />
          {deploymentOwner && (
            <>
              <NavLink href="/settings/deployment">Deployment settings</NavLink>
              <NavLink href="/settings/audit">Deployment audit</NavLink>
            </>
          )}
          <NavAccount who={`${user.name} · ${user.email}`} />
        </>
      }
    >
      {children}
    </ConsoleShell>
  );
}
