"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { ConfirmButton } from "~/components/confirm-button";
import { ApproversSection } from "~/components/console/approvers-section";
import { GuardrailsSection } from "~/components/console/guardrails-section";
import { QuotaRefusalsSection } from "~/components/console/quota-refusals-section";
import { QuotasSection } from "~/components/console/quotas-section";
import { SettingsForm } from "~/components/console/settings-form";
import { EditSection } from "./edit-section";
import { OAuthClientSection } from "./oauth-client-section";
import { SandboxSection } from "./sandbox-section";
import type { RouterOutputs } from "~/trpc/types";
import { useTRPC } from "~/trpc/react";
import { FormError } from "~/components/ui/form-error";

export function SettingsTab({
  teamId,
  slug,
  installation,
  onRemoving,
}: {
  teamId: string;
  slug: string;
  installation: RouterOutputs["installation"]["get"];
  /** True as the removal starts (the page stops asking for the server), false again if it fails. */
  onRemoving: (removing: boolean) => void;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const installationId = installation.id;
  const refresh = () => queryClient.invalidateQueries(trpc.installation.pathFilter());
  const settings = useMutation(trpc.installation.updateSettings.mutationOptions({ onSuccess: refresh }));
  const values = useMutation(trpc.installation.updateTeamValues.mutationOptions({ onSuccess: refresh }));
  // Once the server is being removed, nothing on this page may ask for it again (each would be a 404): the view
  // stops its queries (`onRemoving`), lists elsewhere are only marked stale, and the servers list is where we go.
  const remove = useMutation(
    trpc.installation.remove.mutationOptions({
      onMutate: () => onRemoving(true),
      onError: () => onRemoving(false),
      onSuccess: () => {
        void queryClient.invalidateQueries({ ...trpc.installation.pathFilter(), refetchType: "none" });
        void queryClient.invalidateQueries({ ...trpc.instance.pathFilter(), refetchType: "none" });
        router.push(`/t/${slug}/servers`);
      },
    }),
  );

  return (
    <div className="stack">
      <EditSection teamId={teamId} installation={installation} />

      <section className="card stack" aria-labelledby="log-h">
        <h2 id="log-h">Request log</h2>
        <label style={{ flexDirection: "row", alignItems: "center" }}>
          <input
            type="checkbox"
            checked={installation.requestLogging}
            disabled={settings.isPending}
            onChange={(e) => settings.mutate({ teamId, installationId, requestLogging: e.target.checked })}
          />
          Record every call through the gateway (arguments with secrets redacted)
        </label>
        <FormError error={settings.error} />
      </section>

      <section className="card stack" aria-labelledby="team-h">
        <h2 id="team-h">Team configuration</h2>
        <p className="muted">Saving restarts every member's instance with the new values.</p>
        <SettingsForm
          key={JSON.stringify(installation.teamFields)}
          name="Team configuration"
          fields={installation.teamFields}
          submitLabel="Save and restart"
          pending={values.isPending}
          onSubmit={(v) => values.mutate({ teamId, installationId, values: v })}
        />
        <FormError error={values.error} />
        {values.isSuccess && (
          <p className="muted" role="status">
            Saved. The instances are restarting.
          </p>
        )}
      </section>

      {installation.template.oauth && <OAuthClientSection teamId={teamId} installationId={installationId} />}

      {installation.sandbox && (
        <SandboxSection teamId={teamId} installationId={installationId} sandbox={installation.sandbox} />
      )}

      <ApproversSection teamId={teamId} installationId={installationId} />
      <QuotasSection teamId={teamId} installationId={installationId} />
      <QuotaRefusalsSection teamId={teamId} installationId={installationId} />
      <GuardrailsSection teamId={teamId} installationId={installationId} />

      <section className="card stack" aria-labelledby="rm-h">
        <h2 id="rm-h">Remove</h2>
        <p className="muted">Stops every member's instance and deletes its tools, events and request log.</p>
        <div>
          <ConfirmButton
            label="Remove server"
            triggerClassName="danger"
            title={`Remove ${installation.name}?`}
            body={
              <div className="stack" style={{ gap: ".4rem" }}>
                <p style={{ margin: 0 }}>
                  {stops(installation.instanceCount)} Every member loses its <code>{installation.slug}-*</code> tools at
                  once.
                </p>
                <p style={{ margin: 0 }}>
                  Its configuration, tools, timeline and request log are deleted. This cannot be undone.
                </p>
              </div>
            }
            confirmLabel="Remove server"
            disabled={remove.isPending}
            onConfirm={() => remove.mutate({ teamId, installationId })}
          />
        </div>
        <FormError error={remove.error} />
      </section>
    </div>
  );
}

function stops(instances: number): string {
  if (instances === 0) return "It has no instance yet.";
  return instances === 1 ? "Its one instance stops." : `All ${instances} of its instances stop.`;
}
