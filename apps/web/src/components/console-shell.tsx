import { NavLink } from "./nav-link";
import { SignOutButton } from "./sign-out-button";
import { TeamNav } from "./team-nav";

/**
 * Every signed-in page's frame: the skip link, the sidebar (a menu bar on a phone) and the main content. A
 * team's pages fill the sidebar with the team's sections; the account's pages (teams, account, deployment) with
 * `UserNavLinks`.
 */
export function ConsoleShell({
  navLabel,
  nav,
  children,
}: {
  navLabel: string;
  nav: React.ReactNode;
  children: React.ReactNode;
}) {
  return (
    <div className="shell">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <TeamNav label={navLabel}>{nav}</TeamNav>
      <main className="content" id="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}

/** The sidebar's foot on every page: who is signed in (and as what), their account, signing out. */
export function NavAccount({ who }: { who: string }) {
  return (
    <>
      <div className="muted" style={{ padding: "0 .6rem" }}>
        {who}
      </div>
      <NavLink href="/account">Account</NavLink>
      <SignOutButton />
    </>
  );
}
