"use client";

import Link from "next/link";
import { useState } from "react";
import { authClient } from "~/lib/auth-client";

export function ForgotPasswordForm() {
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function onSubmit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const email = String(new FormData(e.currentTarget).get("email") ?? "").trim();
    setPending(true);
    setError(null);
    const result = await authClient.requestPasswordReset({ email, redirectTo: "/reset-password" });
    setPending(false);
    if (result.error) {
      setError(
        result.error.status === 429
          ? "Too many requests. Wait a minute, then try again."
          : (result.error.message ?? "That did not work. Please try again."),
      );
      return;
    }
    setSentTo(email);
  }

  return (
    <div className="centered">
      <div className="card">
        {sentTo ? (
          <div className="stack" role="status">
            <h1>Check your email</h1>
            <p>If {sentTo} has an account, we sent it a link to choose a new password. The link works for an hour.</p>
            <Link href="/sign-in">Back to sign in</Link>
          </div>
        ) : (
          <form className="stack" onSubmit={onSubmit} aria-label="Reset your password">
            <h1>Reset your password</h1>
            <label>
              Email
              <input name="email" type="email" autoComplete="email" required />
            </label>
            {error && (
              <p className="error" role="alert">
                {error}
              </p>
            )}
            <button type="submit" disabled={pending}>
              {pending ? "Please wait…" : "Send reset link"}
            </button>
            <p className="muted">
              <Link href="/sign-in">Back to sign in</Link>
            </p>
          </form>
        )}
      </div>
    </div>
  );
}
