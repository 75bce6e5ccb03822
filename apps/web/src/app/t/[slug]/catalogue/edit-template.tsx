"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { EditConfirm } from "~/components/console/edit-impact";
import type { RouterInputs, RouterOutputs } from "~/trpc/types";
import { useTRPC } from "~/trpc/react";
import { TemplateForm } from "./template-form";
import { FormError } from "~/components/ui/form-error";

type UpdateInput = RouterInputs["catalogue"]["update"];

/** Edits a catalogue template in place; the confirmation names the installations that change and who restarts. */
export function EditTemplate({
  teamId,
  template,
  onDone,
}: {
  teamId: string;
  template: RouterOutputs["catalogue"]["list"]["items"][number];
  onDone: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [pending, setPending] = useState<UpdateInput | null>(null);
  const impact = useMutation({
    mutationFn: (input: UpdateInput) =>
      queryClient.fetchQuery(trpc.catalogue.updateImpact.queryOptions(input, { staleTime: 0 })),
  });
  const save = useMutation(
    trpc.catalogue.update.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries(trpc.catalogue.pathFilter());
        await queryClient.invalidateQueries(trpc.installation.pathFilter());
        onDone();
      },
    }),
  );
  return (
    <>
      <div hidden={Boolean(pending)}>
        <TemplateForm
          teamId={teamId}
          title={`Edit ${template.name}`}
          submitLabel="Review changes"
          initial={template}
          pending={impact.isPending}
          error={impact.error}
          onDone={onDone}
          onSubmit={(t) => {
            const input = { teamId, templateId: template.id, template: t };
            impact.mutate(input, { onSuccess: () => setPending(input) });
          }}
        />
      </div>
      {pending && impact.data && (
        <EditConfirm
          impact={impact.data}
          pending={save.isPending}
          onBack={() => setPending(null)}
          onConfirm={() => save.mutate(pending)}
        />
      )}
      <FormError error={save.error} />
    </>
  );
}
