"use client";

import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "@switchboard/core/accounts";
import Link from "next/link";
import { useState } from "react";
import { authClient } from "~/lib/auth-client";

export function ResetPasswordForm({ token }: { token: string | null }) {
  const [done, setDone] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  if (!token) {
    return (
      <div className="centered card stack">
        <h1>This reset link does not work</h1>
        <p className="error" role="alert">
          It has expired or was already used. Ask for a new one.
        </p>
        <Link href="/forgot-password">Send a new reset link</Link>
      </div>
    );
  }

  async function onSubmit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const newPassword = String(new FormData(e.currentTarget).get("password") ?? "");
    setPending(true);
    setError(null);
    const result = await authClient.resetPassword({ newPassword, token: token! });
    setPending(false);
    if (result.error) {
      setError(
        result.error.code === "INVALID_TOKEN"
          ? "This reset link has expired or was already used. Ask for a new one."
          : (result.error.message ?? "That did not work. Please try again."),
      );
      return;
    }
    setDone(true);
  }

  return (
    <div className="centered">
      <div className="card">
        {done ? (
          <div className="stack" role="status">
            <h1>Password changed</h1>
            <p>You were signed out everywhere. Sign in with your new password.</p>
            <Link className="button" href="/sign-in">
              Sign in
            </Link>
          </div>
        ) : (
          <form className="stack" onSubmit={onSubmit} aria-label="Choose a new password">
            <h1>Choose a new password</h1>
            <label>
              New password
              <input
                name="password"
                type="password"
                autoComplete="new-password"
                required
                minLength={PASSWORD_MIN_LENGTH}
                maxLength={PASSWORD_MAX_LENGTH}
              />
            </label>
            <span className="muted">At least {PASSWORD_MIN_LENGTH} characters; a few unrelated words work well.</span>
            {error && (
              <p className="error" role="alert">
                {error}
              </p>
            )}
            <button type="submit" disabled={pending}>
              {pending ? "Please wait…" : "Set new password"}
            </button>
          </form>
        )}
      </div>
    </div>
  );
}
