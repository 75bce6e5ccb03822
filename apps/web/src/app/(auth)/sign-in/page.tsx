import { AuthForm } from "~/components/auth-form";

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<{ next?: string; email?: string; error?: string; error_description?: string }>;
}) {
  const { next, email, error, error_description } = await searchParams;
  // A single sign-on that failed comes back here with the provider's (or Better Auth's) code and description.
  const ssoError =
    typeof error === "string"
      ? { code: error.slice(0, 100), description: error_description?.slice(0, 300) ?? null }
      : undefined;
  return <AuthForm mode="sign-in" next={next} email={email} ssoError={ssoError} />;
}
