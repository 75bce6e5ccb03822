"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { InputHTMLAttributes, ReactNode } from "react";
import { useTRPC } from "~/trpc/react";
import type { RouterOutputs } from "~/trpc/types";
import { FormError } from "~/components/ui/form-error";

/** What the deployment sections share: the settings query, its loading and error states, an action's error. */
export type Settings = RouterOutputs["deployment"]["settings"];

export function useSettings() {
  const trpc = useTRPC();
  return useQuery(trpc.deployment.settings.queryOptions());
}

/** Stores what a settings mutation answers (the whole settings) as the settings query's data. */
export function useStoreSettings() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return (data: unknown) => queryClient.setQueryData(trpc.deployment.settings.queryKey(), data as never);
}

export function Loading() {
  return (
    <div className="stack" aria-busy="true">
      <div className="skeleton" />
      <div className="skeleton" />
    </div>
  );
}

/** An action's failure, when there is one. */
export function ActionError({ error }: { error: unknown }) {
  if (!error) return null;
  return <FormError error={error} />;
}

/** A query's data once loaded: a skeleton meanwhile, "Could not load the {what}: …" when it cannot be. */
export function Loaded<T>({
  query,
  what,
  children,
}: {
  query: { isPending: boolean; isError: boolean; error: unknown; data: T | undefined };
  what: string;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Loading />;
  if (query.isError) return <FormError error={query.error} prefix={`Could not load the ${what}: `} />;
  return children(query.data as T);
}

/** The settings once loaded: a skeleton meanwhile, one sentence when they cannot be. */
export function WithSettings({ children }: { children: (data: Settings) => ReactNode }) {
  const settings = useSettings();
  return (
    <Loaded query={settings} what="settings">
      {children}
    </Loaded>
  );
}

/** A one-field form on a row: "Add a deployment owner" (an email), "Allow a host service" (a port). */
export function OneFieldForm({
  label,
  field,
  input,
  value,
  onValue,
  onSubmit,
  pending,
  submitLabel,
  pendingLabel,
}: {
  /** The form's accessible name. */
  label: string;
  /** The input's label. */
  field: string;
  input: InputHTMLAttributes<HTMLInputElement>;
  value: string;
  onValue: (value: string) => void;
  onSubmit: () => void;
  pending: boolean;
  submitLabel: string;
  pendingLabel: string;
}) {
  return (
    <form
      className="row"
      style={{ alignItems: "flex-end" }}
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      <label style={{ flex: 1 }}>
        {field}
        <input {...input} required value={value} onChange={(e) => onValue(e.target.value)} />
      </label>
      <button type="submit" disabled={pending}>
        {pending ? pendingLabel : submitLabel}
      </button>
    </form>
  );
}
