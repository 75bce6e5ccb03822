"use client";

import Link from "next/link";
import { AllowListSection } from "./allow-list-section";
import { EnterpriseIdpsSection } from "./enterprise-idps";
import { LoopbackSection } from "./loopback-section";
import { OperatorSection } from "./operator-section";
import { OwnersSection } from "./owners-section";
import { SignupSection } from "./signup-section";
import { SsoSection } from "./sso-section";
import { TeamsSection } from "./teams-section";

export function DeploymentView() {
  return (
    <div className="stack">
      <h1>Deployment settings</h1>
      <p className="muted">
        These settings apply to the whole Switchboard deployment and only deployment owners see them. Stdio servers are
        programs that run on the worker host: a team can install them only when you allow the team and the command.
      </p>
      <p>
        <Link href="/settings/audit">Audit trail</Link>: every team&apos;s changes, sign-ins and these settings.
      </p>
      <p>
        <Link href="/settings/identity">Identity provider</Link>: SCIM provisioning and groups to teams.
      </p>
      <SignupSection />
      <OwnersSection />
      <SsoSection />
      <TeamsSection />
      <AllowListSection />
      <LoopbackSection />
      <EnterpriseIdpsSection />
      <OperatorSection />
    </div>
  );
}
