import Link from "next/link";
import { getDb } from "@switchboard/db/client";
import { AuthForm } from "~/components/auth-form";
import { signupAvailability } from "~/server/services/deployment.service";

export const dynamic = "force-dynamic";

export default async function SignUpPage({
  searchParams,
}: {
  searchParams: Promise<{ next?: string; email?: string }>;
}) {
  const { next, email } = await searchParams;
  const { mode, firstAccount } = await signupAvailability(getDb());
  // Someone following an invitation link comes back to /invite/<id>: the invitation lets their address in.
  const invited = typeof next === "string" && next.startsWith("/invite/");
  if (mode === "invite_only" && !firstAccount && !invited) {
    const query = next ? `?next=${encodeURIComponent(next)}` : "";
    return (
      <div className="centered">
        <div className="card stack" data-testid="invite-only">
          <h1>Sign-up is by invitation only</h1>
          <p>
            To get an account on this Switchboard, ask a team admin to invite your email address, then open the
            invitation link they send you.
          </p>
          <p className="muted">
            Already have an account? <Link href={`/sign-in${query}`}>Sign in</Link>
          </p>
        </div>
      </div>
    );
  }
  const notice = firstAccount
    ? "You are creating the first account of this Switchboard: it becomes the deployment owner, who decides who may sign up and which commands teams may run."
    : mode === "invite_only"
      ? "Sign-up is by invitation only: use the email address the invitation was sent to."
      : undefined;
  return (
    <AuthForm
      mode="sign-up"
      next={next}
      email={email}
      notice={notice}
      inviteOnly={mode === "invite_only" && !firstAccount}
    />
  );
}
