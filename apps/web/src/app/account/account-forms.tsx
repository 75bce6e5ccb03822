"use client";

import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "@switchboard/core/accounts";
import { useState } from "react";
import { authClient } from "~/lib/auth-client";

export function ChangePasswordForm() {
  const [done, setDone] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function onSubmit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const formEl = e.currentTarget;
    const form = new FormData(formEl);
    setPending(true);
    setError(null);
    setDone(false);
    const result = await authClient.changePassword({
      currentPassword: String(form.get("currentPassword") ?? ""),
      newPassword: String(form.get("newPassword") ?? ""),
      revokeOtherSessions: true,
    });
    setPending(false);
    if (result.error) {
      setError(
        result.error.code === "INVALID_PASSWORD"
          ? "Your current password is not right."
          : (result.error.message ?? "That did not work. Please try again."),
      );
      return;
    }
    formEl.reset();
    setDone(true);
  }

  return (
    <form className="card stack" onSubmit={onSubmit} aria-label="Change password">
      <h2>Change password</h2>
      <label>
        Current password
        <input name="currentPassword" type="password" autoComplete="current-password" required />
      </label>
      <label>
        New password
        <input
          name="newPassword"
          type="password"
          autoComplete="new-password"
          required
          minLength={PASSWORD_MIN_LENGTH}
          maxLength={PASSWORD_MAX_LENGTH}
        />
      </label>
      <span className="muted">At least {PASSWORD_MIN_LENGTH} characters. Your other sessions are signed out.</span>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {done && <p role="status">Password changed.</p>}
      <div>
        <button type="submit" disabled={pending}>
          {pending ? "Please wait…" : "Change password"}
        </button>
      </div>
    </form>
  );
}

/** Sends the confirmation mail again (the first one goes out at sign-up). */
export function ResendConfirmation({ email, callbackURL }: { email: string; callbackURL: string }) {
  const [state, setState] = useState<"idle" | "pending" | "sent" | "error">("idle");
  return (
    <div className="stack">
      <p className="muted">Confirm {email} with the link we mailed you; you need a confirmed address to join a team.</p>
      <div>
        <button
          type="button"
          className="secondary"
          disabled={state === "pending"}
          onClick={async () => {
            setState("pending");
            const result = await authClient.sendVerificationEmail({ email, callbackURL });
            setState(result.error ? "error" : "sent");
          }}
        >
          Send the confirmation link again
        </button>
      </div>
      {state === "sent" && <p role="status">Sent. Check your inbox (and the spam folder).</p>}
      {state === "error" && (
        <p className="error" role="alert">
          The mail could not be sent. Wait a minute, then try again.
        </p>
      )}
    </div>
  );
}
