import { AuthForm } from "~/components/auth-form";

export default async function SignUpPage({ searchParams }: { searchParams: Promise<{ next?: string; email?: string }> }) {
  const { next, email } = await searchParams;
  return <AuthForm mode="sign-up" next={next} email={email} />;
}
