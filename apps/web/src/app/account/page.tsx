import Link from "next/link";
import { requireUser } from "~/server/page-auth";
import { SignOutButton } from "~/components/sign-out-button";
import { ChangePasswordForm, ResendConfirmation } from "./account-forms";

export const dynamic = "force-dynamic";

export default async function AccountPage() {
  const user = await requireUser("/account");
  return (
    <div className="centered stack" style={{ maxWidth: 640 }}>
      <div className="row" style={{ justifyContent: "space-between" }}>
        <Link href="/teams">← Your teams</Link>
        <SignOutButton />
      </div>
      <section className="card stack" aria-labelledby="account-heading">
        <h1 id="account-heading">Your account</h1>
        <p>
          {user.name} · {user.email}{" "}
          {user.emailVerified ? <span className="badge">confirmed</span> : <span className="badge">not confirmed</span>}
        </p>
        {!user.emailVerified && <ResendConfirmation email={user.email} callbackURL="/account" />}
      </section>
      <ChangePasswordForm />
    </div>
  );
}
