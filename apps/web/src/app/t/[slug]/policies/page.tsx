import { notFound } from "next/navigation";
import { isTeamAdminRole } from "@switchboard/core/accounts";
import { PolicyDraftProvider } from "~/components/console/policies/policy-draft";
import { PolicyEditor } from "~/components/console/policies/policy-editor";
import { PolicyHistory } from "~/components/console/policies/policy-history";
import { WhatWouldHappen } from "~/components/console/policies/what-would-happen";
import { requireTeam } from "~/server/page-auth";

export default async function TeamPoliciesPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { team, role } = await requireTeam(slug);
  if (!isTeamAdminRole(role)) notFound();
  return (
    <div className="stack">
      <h1 style={{ margin: 0 }}>Policies</h1>
      <p className="muted" style={{ margin: 0 }}>
        Who may call which tool, with which arguments, and which calls wait for an approver, written as Cedar policies.
        Until the team saves its own, the defaults apply: everything the servers&apos; settings let through is allowed,
        and tools marked “requires approval” wait for an approver.
      </p>
      <PolicyDraftProvider>
        <PolicyEditor teamId={team.id} />
        <WhatWouldHappen teamId={team.id} />
      </PolicyDraftProvider>
      <PolicyHistory teamId={team.id} />
    </div>
  );
}
