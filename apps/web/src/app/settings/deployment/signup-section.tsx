"use client";

import { useMutation } from "@tanstack/react-query";
import { ConfirmButton } from "~/components/confirm-button";
import { useTRPC } from "~/trpc/react";
import { ActionError, useStoreSettings, WithSettings } from "./section-parts";

/** Who may create an account: open, or invitation only (unless the operator fixed it). */
export function SignupSection() {
  const trpc = useTRPC();
  const store = useStoreSettings();
  const setMode = useMutation(trpc.deployment.setSignupMode.mutationOptions({ onSuccess: store }));
  return (
    <section className="card stack" aria-labelledby="signup-heading">
      <h2 id="signup-heading">Sign-up</h2>
      <WithSettings>
        {(settings) => (
          <>
            <p data-testid="signup-mode">
              {settings.signupMode === "invite_only"
                ? "Invitation only: people get an account only through an invitation from a team admin."
                : "Open: anyone who can reach this console can create an account."}
            </p>
            {settings.signupModeFixedByOperator ? (
              <p className="muted">
                Fixed by the operator with SIGNUP_MODE={settings.operator.signupMode}; change it in the server's
                environment.
              </p>
            ) : settings.signupMode === "invite_only" ? (
              <ConfirmButton
                label="Open sign-up to everyone"
                title="Open sign-up?"
                body="Anyone who can reach this console will be able to create an account and their own teams."
                confirmLabel="Open sign-up"
                disabled={setMode.isPending}
                onConfirm={() => setMode.mutate({ mode: "open" })}
              />
            ) : (
              <button
                type="button"
                className="secondary"
                disabled={setMode.isPending}
                onClick={() => setMode.mutate({ mode: "invite_only" })}
              >
                Make sign-up invitation only
              </button>
            )}
            <ActionError error={setMode.error} />
          </>
        )}
      </WithSettings>
    </section>
  );
}
