import { requireUser } from "~/server/page-auth";
import { UserShell } from "~/components/user-shell";
import { ChangePasswordForm, ResendConfirmation } from "./account-forms";

export const dynamic = "force-dynamic";

export default async function AccountPage() {
  const user = await requireUser("/account");
  return (
    <UserShell user={user}>
      <div className="stack" style={{ maxWidth: 640 }}>
        <section className="card stack" aria-labelledby="account-heading">
          <h1 id="account-heading">Your account</h1>
          <p>
            {user.name} · {user.email}{" "}
            {user.emailVerified ? (
              <span className="badge">confirmed</span>
            ) : (
              <span className="badge">not confirmed</span>
            )}
          </p>
          {!user.emailVerified && <ResendConfirmation email={user.email} callbackURL="/account" />}
        </section>
        <ChangePasswordForm />
      </div>
    </UserShell>
  );
}
