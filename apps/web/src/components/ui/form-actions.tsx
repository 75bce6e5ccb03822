"use client";

import { FormError } from "~/components/ui/form-error";

/**
 * The end of an inline form: its mutation's error as one sentence, then the submit button (its label while the
 * mutation runs) and Cancel.
 */
export function FormActions({
  mutation,
  label,
  pendingLabel,
  onCancel,
}: {
  mutation: { isPending: boolean; isError: boolean; error: unknown };
  label: string;
  pendingLabel: string;
  onCancel: () => void;
}) {
  return (
    <>
      {mutation.isError && <FormError error={mutation.error} />}
      <div className="row" style={{ gap: 8 }}>
        <button type="submit" disabled={mutation.isPending}>
          {mutation.isPending ? pendingLabel : label}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </>
  );
}
