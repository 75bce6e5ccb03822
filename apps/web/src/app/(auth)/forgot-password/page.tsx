import { ForgotPasswordForm } from "./forgot-password-form";

export default function ForgotPasswordPage() {
  return <ForgotPasswordForm />;
}
