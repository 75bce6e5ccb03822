import { randomBytes } from "node:crypto";
import { request, type FullConfig } from "@playwright/test";

/**
 * Runs once, after the webServer started on its fresh database: the first account signs up, which makes it
 * the deployment owner (as the operator's own account would be), and opens sign-up explicitly, because the
 * journeys sign up new accounts through the API. The deployment settings journey switches to invite-only and
 * back. The owner's credentials reach the test workers through the environment.
 */
export default async function globalSetup(config: FullConfig) {
  const baseURL = config.projects[0]!.use.baseURL!;
  const owner = {
    name: "Deployment Owner",
    email: `deployment-owner-${randomBytes(4).toString("hex")}@example.test`,
    password: `pw-${randomBytes(12).toString("hex")}`,
  };
  // The console's own Origin, as a browser sends it: tRPC mutations without it are refused.
  const ctx = await request.newContext({ baseURL, extraHTTPHeaders: { origin: new URL(baseURL).origin } });
  try {
    const signUp = await ctx.post("/api/auth/sign-up/email", { data: owner });
    if (!signUp.ok()) throw new Error(`the first account could not sign up: ${await signUp.text()}`);
    // Sign-up answers alike for new and known addresses and signs nobody in: sign in as the console does.
    const signIn = await ctx.post("/api/auth/sign-in/email", {
      data: { email: owner.email, password: owner.password },
    });
    if (!signIn.ok()) throw new Error(`the first account could not sign in: ${await signIn.text()}`);
    const open = await ctx.post("/api/trpc/deployment.setSignupMode", { data: { json: { mode: "open" } } });
    if (!open.ok()) throw new Error(`could not open sign-up: ${await open.text()}`);
  } finally {
    await ctx.dispose();
  }
  process.env.E2E_DEPLOYMENT_OWNER = JSON.stringify(owner);
}
