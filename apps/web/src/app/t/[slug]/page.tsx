import Link from "next/link";
import { getDb } from "@switchboard/db/client";
import { requireTeam } from "~/server/page-auth";

export default async function TeamOverview({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { team, role } = await requireTeam(slug);
  const db = getDb();
  const [members, installations] = await Promise.all([
    db.membership.count({ where: { teamId: team.id } }),
    db.installation.count({ where: { teamId: team.id } }),
  ]);
  return (
    <div className="stack">
      <h1>{team.name}</h1>
      <div className="row">
        <div className="card" style={{ flex: 1 }}>
          <div className="muted">Members</div>
          <div style={{ fontSize: "1.6rem", fontWeight: 600 }} data-testid="member-count">{members}</div>
          <Link href={`/t/${team.slug}/members`}>Manage members</Link>
        </div>
        <div className="card" style={{ flex: 1 }}>
          <div className="muted">Installed servers</div>
          <div style={{ fontSize: "1.6rem", fontWeight: 600 }}>{installations}</div>
          <span className="muted">Your role: {role}</span>
        </div>
      </div>
    </div>
  );
}
