import Link from "next/link";
import { requireTeam } from "~/server/page-auth";
import { SignOutButton } from "~/components/sign-out-button";

export const dynamic = "force-dynamic";

export default async function TeamLayout({ children, params }: { children: React.ReactNode; params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { team, user, role } = await requireTeam(slug);
  return (
    <div className="shell">
      <nav className="sidebar" aria-label="Team navigation">
        <Link href="/teams" className="brand">Switchboard</Link>
        <div className="team-name">{team.name}</div>
        <Link href={`/t/${team.slug}`}>Overview</Link>
        <Link href={`/t/${team.slug}/servers`}>Servers</Link>
        <Link href={`/t/${team.slug}/my-servers`}>My servers</Link>
        <Link href={`/t/${team.slug}/catalogue`}>Catalogue</Link>
        <Link href={`/t/${team.slug}/connect`}>Connect</Link>
        <Link href={`/t/${team.slug}/members`}>Members</Link>
        <div className="spacer" />
        <div className="muted" style={{ color: "#adb5bd", padding: "0 .6rem" }}>
          {user.name} · {role}
        </div>
        <SignOutButton />
      </nav>
      <main className="content">{children}</main>
    </div>
  );
}
