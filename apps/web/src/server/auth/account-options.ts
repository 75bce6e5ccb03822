import { createHash } from "node:crypto";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "@switchboard/core/accounts";
import { redisKeys } from "@switchboard/core/contracts";
import type { BetterAuthOptions } from "better-auth";
import type { RedisClient as Redis } from "@switchboard/runtime/redis-client";
import type { Logger } from "pino";
import type { WebEnv } from "@switchboard/runtime/env";
import { createMailer, sendInBackground, type Mailer } from "./mailer";
import { redisRateLimitStorage } from "./rate-limit-storage";

const EMAIL_VERIFICATION_TTL_SECONDS = 24 * 3600;
const PASSWORD_RESET_TTL_SECONDS = 3600;
/** At most one "someone tried to sign up with your address" mail per address in this window. */
export const SIGNUP_ATTEMPT_NOTICE_INTERVAL_SECONDS = 24 * 3600;

/**
 * Account hygiene for Better Auth, kept out of auth.ts: the password rules, mail for verification and reset,
 * answers that do not tell whether an address has an account, rate limits shared by every console process
 * (Redis), and Secure cookies behind https.
 */
export function accountOptions({
  env,
  logger,
  redis,
  mailer = createMailer({ smtpUrl: env.SMTP_URL, from: env.MAIL_FROM, logger }),
  ssoAccountRefusal = async () => null,
}: {
  env: Pick<WebEnv, "APP_URL" | "NODE_ENV" | "AUTH_RATE_LIMIT" | "REDIS_PREFIX" | "SMTP_URL" | "MAIL_FROM">;
  logger: Logger;
  redis: () => Redis;
  mailer?: Mailer;
  /** For an account the identity provider made (no password here), the sentence saying to sign in with SSO. */
  ssoAccountRefusal?: (userId: string) => Promise<string | null>;
}) {
  /** Whether this address may get a sign-up attempt notice now (and, if so, starts its window). */
  async function firstNoticeInWindow(email: string): Promise<boolean> {
    const address = createHash("sha256").update(email.toLowerCase()).digest("hex");
    try {
      const set = await redis().set(
        redisKeys.signupAttemptNotice(env.REDIS_PREFIX, address),
        "1",
        "EX",
        SIGNUP_ATTEMPT_NOTICE_INTERVAL_SECONDS,
        "NX",
      );
      return set === "OK";
    } catch (err) {
      // A missed warning is worse than a second one: without Redis the mail goes out.
      logger.warn({ err }, "sign-up attempt notice limit unavailable (Redis): mail sent");
      return true;
    }
  }

  return {
    emailAndPassword: {
      enabled: true,
      // Sign-up never signs in: with a session for new addresses only, its answer would tell which exist. The
      // console signs in right after, as anyone would.
      autoSignIn: false,
      minPasswordLength: PASSWORD_MIN_LENGTH,
      maxPasswordLength: PASSWORD_MAX_LENGTH,
      resetPasswordTokenExpiresIn: PASSWORD_RESET_TTL_SECONDS,
      revokeSessionsOnPasswordReset: true,
      async sendResetPassword({ user, url }) {
        // The answer on the page is the same as for any address; the person learns by mail to use SSO, and gets no
        // link (sso.ts refuses the token too, for links mailed before).
        const refusal = await ssoAccountRefusal(user.id);
        if (refusal) {
          const signIn = new URL("/sign-in", env.APP_URL).toString();
          sendInBackground(
            mailer,
            {
              to: user.email,
              subject: "Your Switchboard account signs in with SSO",
              text: `Someone asked to reset the password of your Switchboard account.\n\n${refusal}\n${signIn}\n\nIf it was not you, ignore this mail.`,
              link: signIn,
            },
            logger,
          );
          return;
        }
        sendInBackground(
          mailer,
          {
            to: user.email,
            subject: "Reset your Switchboard password",
            text: `Someone asked to reset the password of your Switchboard account.\n\nTo choose a new password, open this link within an hour:\n${url}\n\nIf it was not you, ignore this mail: your password stays as it is.`,
            link: url,
          },
          logger,
        );
      },
      async onExistingUserSignUp({ user }) {
        const url = new URL("/forgot-password", env.APP_URL).toString();
        // Anyone can try to sign up with someone's address as often as they like: its owner hears of it once per
        // window (counted in Redis, over every console process), not once per try. One Redis write, so the answer
        // takes no longer than a new address's, which writes to the database.
        if (!(await firstNoticeInWindow(user.email))) return;
        sendInBackground(
          mailer,
          {
            to: user.email,
            subject: "Someone tried to create a Switchboard account with your address",
            text: `Someone tried to create a new Switchboard account with ${user.email}, which already has one.\n\nIf it was you, sign in instead, or reset your password here:\n${url}\n\nIf it was not you, you can ignore this mail (we send it at most once a day).`,
            link: url,
          },
          logger,
        );
      },
    },
    emailVerification: {
      sendOnSignUp: true,
      autoSignInAfterVerification: false,
      expiresIn: EMAIL_VERIFICATION_TTL_SECONDS,
      async sendVerificationEmail({ user, url }) {
        sendInBackground(
          mailer,
          {
            to: user.email,
            subject: "Confirm your email address for Switchboard",
            text: `Open this link to confirm that ${user.email} is your address (it works for 24 hours):\n${url}\n\nYou need a confirmed address to join a team.`,
            link: url,
          },
          logger,
        );
      },
    },
    rateLimit: {
      enabled: env.AUTH_RATE_LIMIT === "on" && env.NODE_ENV === "production",
      window: 60,
      max: 100,
      customStorage: redisRateLimitStorage({ redis, prefix: env.REDIS_PREFIX, logger }),
    },
    advanced: {
      useSecureCookies: new URL(env.APP_URL).protocol === "https:",
      // The gateway (apps/gateway/server.ts) appends the peer's address to X-Forwarded-For when it forwards to the console: the first
      // address from the right that is not this machine is the client's.
      ipAddress: { trustedProxies: ["127.0.0.1", "::1"] },
    },
  } satisfies Partial<BetterAuthOptions>;
}
