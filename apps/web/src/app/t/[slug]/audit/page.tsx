import { notFound } from "next/navigation";
import { isTeamAdminRole } from "@switchboard/core/accounts";
import { AuditLog, RetentionSettings } from "~/components/console/audit-log";
import { requireTeam } from "~/server/page-auth";

export default async function TeamAuditPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { team, role } = await requireTeam(slug);
  if (!isTeamAdminRole(role)) notFound();
  return (
    <div className="stack">
      <h1 style={{ margin: 0 }}>Audit</h1>
      <p className="muted" style={{ margin: 0 }}>
        Every change made to this team, through the console, the API or an MCP client: who, when, from where, and what
        it was before and after. Secret values are never recorded.
      </p>
      <AuditLog scope={{ kind: "team", teamId: team.id }} />
      <RetentionSettings teamId={team.id} />
    </div>
  );
}
