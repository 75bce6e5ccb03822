"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmButton } from "~/components/confirm-button";
import { useTRPC } from "~/trpc/react";
import { ActionError, Loaded, OneFieldForm } from "./section-parts";

/** The deployment owners: listed, removed (never the last), added by the email of an existing account. */
export function OwnersSection() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const owners = useQuery(trpc.deployment.owners.queryOptions());
  const [email, setEmail] = useState("");
  const store = (data: Array<{ id: string; name: string; email: string }>) =>
    queryClient.setQueryData(trpc.deployment.owners.queryKey(), data);
  const add = useMutation(
    trpc.deployment.addOwner.mutationOptions({
      onSuccess: (data) => {
        setEmail("");
        store(data);
      },
    }),
  );
  const remove = useMutation(trpc.deployment.removeOwner.mutationOptions({ onSuccess: store }));
  return (
    <section className="card stack" aria-labelledby="owners-heading">
      <h2 id="owners-heading">Deployment owners</h2>
      <p className="muted">They see this page and change these settings. The first account created became one.</p>
      <ActionError error={remove.error} />
      <Loaded query={owners} what="owners">
        {(list) => (
          <ul className="stack" style={{ listStyle: "none", padding: 0, margin: 0 }}>
            {list.map((o) => (
              <li
                key={o.id}
                className="row"
                style={{ justifyContent: "space-between" }}
                data-testid="deployment-owner-row"
              >
                <span>
                  {o.name} <span className="muted">{o.email}</span>
                </span>
                <ConfirmButton
                  label={`Remove ${o.email} as owner`}
                  title={`Remove ${o.email} as deployment owner?`}
                  body="They keep their account and teams but can no longer see or change the deployment settings."
                  confirmLabel="Remove owner"
                  disabled={remove.isPending || list.length <= 1}
                  onConfirm={() => remove.mutate({ userId: o.id })}
                />
              </li>
            ))}
          </ul>
        )}
      </Loaded>
      <OneFieldForm
        label="Add a deployment owner"
        field="Email of an existing account"
        input={{ type: "email", placeholder: "colleague@example.com" }}
        value={email}
        onValue={setEmail}
        onSubmit={() => add.mutate({ email })}
        pending={add.isPending}
        submitLabel="Make owner"
        pendingLabel="Adding…"
      />
      <ActionError error={add.error} />
    </section>
  );
}
