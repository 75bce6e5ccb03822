import { notFound } from "next/navigation";
import { getDb } from "@switchboard/db/client";
import { isDeploymentOwner } from "@switchboard/db/queries/deployment";
import { AuditLog } from "~/components/console/audit-log";
import { UserShell } from "~/components/user-shell";
import { requireUser } from "~/server/page-auth";

export const dynamic = "force-dynamic";

/** Deployment owners: every team's audit trail and the deployment's own (sign-ins, deployment settings). */
export default async function DeploymentAuditPage() {
  const user = await requireUser("/settings/audit");
  if (!(await isDeploymentOwner(getDb(), user.id))) notFound();
  return (
    <UserShell user={user}>
      <div className="stack">
        <h1 style={{ margin: 0 }}>Audit</h1>
        <p className="muted" style={{ margin: 0 }}>
          Every team&apos;s changes and the deployment&apos;s own records: sign-ins and failed sign-ins, deployment
          settings, owners. Secret values are never recorded.
        </p>
        <AuditLog scope={{ kind: "deployment" }} />
      </div>
    </UserShell>
  );
}
