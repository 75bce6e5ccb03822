"use client";

import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "@switchboard/core/accounts";
import { ssoErrorSentence } from "@switchboard/core/sso";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { authClient } from "~/lib/auth-client";

/** Only same-site paths are followed after sign-in, never an absolute URL from the query string. */
function safeNext(next: string | undefined): string {
  return next && next.startsWith("/") && !next.startsWith("//") ? next : "/";
}

export function AuthForm({
  mode,
  next,
  email: initialEmail,
  notice,
  inviteOnly = false,
  ssoError,
}: {
  mode: "sign-in" | "sign-up";
  next?: string;
  email?: string;
  notice?: string;
  /** Sign-up needs an invitation: an address without one gets the same answer as any other, and no account. */
  inviteOnly?: boolean;
  /** A single sign-on that failed and came back here: its code and description, shown behind a disclosure. */
  ssoError?: { code: string; description: string | null };
}) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const target = safeNext(next);
  const query = next
    ? `?next=${encodeURIComponent(next)}${initialEmail ? `&email=${encodeURIComponent(initialEmail)}` : ""}`
    : "";
  // An MCP client's sign-in (Better Auth's signed authorization request in the URL) keeps its query between the two forms.
  const [oauthQuery, setOauthQuery] = useState<string | null>(null);
  useEffect(() => {
    if (new URLSearchParams(window.location.search).has("sig")) setOauthQuery(window.location.search);
  }, []);

  const [ssoDetail, setSsoDetail] = useState<string | null>(
    ssoError ? `${ssoError.code}${ssoError.description ? `: ${ssoError.description}` : ""}` : null,
  );

  /** "Sign in with SSO": to the identity provider of the address's domain (an MCP client's query goes along). */
  async function signInWithSso(email: string) {
    if (!email.includes("@")) {
      setError("Enter your work email address first: its domain decides where you sign in.");
      return;
    }
    setPending(true);
    setError(null);
    setSsoDetail(null);
    // A failure comes back to this page with where it was going; an MCP client's signed query is put back by the
    // server (sso.ts), so signing in again still continues to the client.
    const started = await authClient.signIn.sso({ email, callbackURL: target, errorCallbackURL: `/sign-in${query}` });
    if (started.error) {
      setPending(false);
      const code = String((started.error as { code?: unknown }).code ?? started.error.status ?? "");
      setError(
        started.error.status === 404
          ? ssoErrorSentence("unknown_domain")
          : ssoErrorSentence(code, started.error.message ?? null),
      );
      setSsoDetail(`${code}${started.error.message ? `: ${started.error.message}` : ""}`);
      return;
    }
    const url = (started.data as { url?: string } | null)?.url;
    if (url) window.location.assign(url);
  }

  async function onSubmit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const email = String(form.get("email") ?? "").trim();
    const password = String(form.get("password") ?? "");
    setPending(true);
    setError(null);
    setSsoDetail(null);
    if (mode === "sign-up") {
      // The answer is the same whether or not the address already has an account; the confirmation mail
      // brings the person back to where they were going (an invitation, usually).
      const created = await authClient.signUp.email({
        email,
        password,
        name: String(form.get("name") ?? "").trim() || email.split("@")[0]!,
        callbackURL: target,
      });
      if (created.error) {
        setPending(false);
        setError(created.error.message ?? "That did not work. Please check your details.");
        return;
      }
    }
    const signedIn = await authClient.signIn.email({ email, password });
    setPending(false);
    // The address's domain signs in through its identity provider only: go there.
    if (signedIn.error && (signedIn.error as { code?: unknown }).code === "SSO_REQUIRED") {
      await signInWithSso(email);
      return;
    }
    if (signedIn.error) {
      setError(
        mode === "sign-up"
          ? inviteOnly
            ? "We could not sign you in. If this address already has an account, sign in with its password or reset it; if not, use the address your invitation was sent to."
            : "We could not sign you in. If this address already has an account, sign in with its password or reset it."
          : signedIn.error.status === 429
            ? "Too many attempts. Wait a minute, then try again."
            : (signedIn.error.message ?? "That did not work. Please check your details."),
      );
      return;
    }
    // Signing in for an MCP client continues its authorization: Better Auth answers where to go (the consent page).
    const continued = signedIn.data as { redirect?: boolean; url?: string } | null;
    if (continued?.redirect && continued.url) {
      window.location.assign(continued.url);
      return;
    }
    router.push(target);
    router.refresh();
  }

  return (
    <div className="centered">
      <div className="card">
        <form className="stack" onSubmit={onSubmit} aria-label={mode === "sign-up" ? "Create your account" : "Sign in"}>
          <h1>{mode === "sign-up" ? "Create your account" : "Sign in to Switchboard"}</h1>
          {notice && (
            <p className="muted" data-testid="auth-notice">
              {notice}
            </p>
          )}
          {mode === "sign-up" && (
            <label>
              Name
              <input name="name" autoComplete="name" required maxLength={80} />
            </label>
          )}
          <label>
            Email
            <input name="email" type="email" autoComplete="email" required defaultValue={initialEmail} />
          </label>
          <label>
            Password
            <input
              name="password"
              type="password"
              autoComplete={mode === "sign-up" ? "new-password" : "current-password"}
              required
              minLength={mode === "sign-up" ? PASSWORD_MIN_LENGTH : undefined}
              maxLength={PASSWORD_MAX_LENGTH}
            />
          </label>
          {mode === "sign-up" && (
            <span className="muted">At least {PASSWORD_MIN_LENGTH} characters; a few unrelated words work well.</span>
          )}
          {(error || ssoError) && (
            <div role="alert" data-testid="auth-error">
              <p className="error">{error ?? ssoErrorSentence(ssoError!.code, ssoError!.description)}</p>
              {ssoDetail && (
                <details>
                  <summary>Details</summary>
                  <code style={{ overflowWrap: "anywhere" }}>{ssoDetail}</code>
                </details>
              )}
            </div>
          )}
          <button type="submit" disabled={pending}>
            {pending ? "Please wait…" : mode === "sign-up" ? "Create account" : "Sign in"}
          </button>
          {mode === "sign-in" && (
            <button
              type="button"
              className="secondary"
              disabled={pending}
              onClick={(e) => {
                const form = e.currentTarget.form;
                void signInWithSso(String(new FormData(form!).get("email") ?? "").trim());
              }}
            >
              Sign in with SSO
            </button>
          )}
          <p className="muted">
            {mode === "sign-up" ? (
              <>
                Already have an account? <Link href={`/sign-in${oauthQuery ?? query}`}>Sign in</Link>
              </>
            ) : (
              <>
                New here? <Link href={`/sign-up${oauthQuery ?? query}`}>Create an account</Link> ·{" "}
                <Link href="/forgot-password">Forgot password?</Link>
              </>
            )}
          </p>
        </form>
      </div>
    </div>
  );
}
