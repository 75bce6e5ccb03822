"use client";

import { needsMemberAction } from "@switchboard/core/status";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { InstanceActions } from "~/components/console/instance-actions";
import { OAuthButton } from "~/components/console/oauth-button";
import { ErrorText } from "~/components/console/error-text";
import { InstanceCell } from "~/components/console/instance-cell";
import { SettingsForm } from "~/components/console/settings-form";
import { useToast } from "~/components/ui/toast";
import type { RouterOutputs } from "~/trpc/types";
import { useTRPC } from "~/trpc/react";
import { FormError } from "~/components/ui/form-error";

type Mine = RouterOutputs["instance"]["mine"]["items"][number];

export function MyServerCard({
  teamId,
  slug,
  instance,
  isAdmin,
}: {
  teamId: string;
  slug: string;
  instance: Mine;
  isAdmin: boolean;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const name = instance.installation.name;
  const save = useMutation(
    trpc.instance.saveMyValues.mutationOptions({
      onSuccess: () => {
        toast(`Saved your settings for ${name}. The server restarts with them.`);
        return queryClient.invalidateQueries(trpc.instance.pathFilter());
      },
    }),
  );
  const awaiting = instance.status === "awaiting_user_config";
  const needsYou = needsMemberAction(instance.status);
  return (
    <article
      className={`card stack${needsYou ? " needs-you" : ""}`}
      aria-labelledby={`my-${instance.id}`}
      data-testid={`my-server-${instance.installation.slug}`}
    >
      <div className="row" style={{ justifyContent: "space-between", alignItems: "flex-start" }}>
        <div className="stack" style={{ gap: ".3rem", minWidth: 0 }}>
          <h2 id={`my-${instance.id}`} style={{ margin: 0 }}>
            <Link href={`/t/${slug}/installations/${instance.installation.id}`}>{name}</Link>{" "}
            <code className="muted small">{instance.installation.slug}</code>
          </h2>
          <InstanceCell cell={instance} counts={{ numbers: instance.clientTools, view: "member" }} />
          {instance.statusMessage && (
            <span className="small">
              <ErrorText message={instance.statusMessage} testId="status-message" />
            </span>
          )}
        </div>
        <div className="row">
          <InstanceActions
            teamId={teamId}
            instanceId={instance.id}
            status={instance.status}
            label={name}
            canRestart={isAdmin}
          />
          {instance.status === "requires_reauth" && (
            <OAuthButton
              teamId={teamId}
              instanceId={instance.id}
              name={name}
              label={instance.toolCount > 0 ? "Re-authenticate" : "Connect"}
            />
          )}
        </div>
      </div>
      {instance.fields.length > 0 && (
        <details open={awaiting}>
          <summary>Your settings{awaiting ? " (needed to start this server)" : ""}</summary>
          <SettingsForm
            key={JSON.stringify(instance.fields)}
            name={`Your settings for ${name}`}
            fields={instance.fields}
            highlightMissing={awaiting}
            requireFilled
            submitLabel="Save my settings"
            pending={save.isPending}
            onSubmit={(values) => save.mutate({ teamId, instanceId: instance.id, values })}
          />
          <FormError error={save.error} />
          {save.isSuccess && (
            <p className="muted" role="status">
              Saved.
            </p>
          )}
        </details>
      )}
    </article>
  );
}
