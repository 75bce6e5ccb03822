import { AuthForm } from "~/components/auth-form";

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<{ next?: string; email?: string }>;
}) {
  const { next, email } = await searchParams;
  return <AuthForm mode="sign-in" next={next} email={email} />;
}
