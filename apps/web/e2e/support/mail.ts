import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, type APIRequestContext } from "@playwright/test";
import { linkIn, mailsIn, newestTo } from "../../test/support/mail-sink";

/**
 * The e2e server sends account mail over SMTP to a sink (test/support/mail-sink.ts) that serve.ts starts; the
 * sink drops each message here, where the specs read the links a person would click.
 */
export const MAIL_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../.artifacts/mail");

export async function mailedLink(to: string, subject: RegExp): Promise<string> {
  let link: string | undefined;
  await expect
    .poll(
      async () => {
        const mail = newestTo(await mailsIn(MAIL_DIR), to, subject);
        link = mail ? linkIn(mail) : undefined;
        return link;
      },
      { message: `a mail to ${to} matching ${subject}`, timeout: 15_000 },
    )
    .toBeDefined();
  return link!;
}

/** Opens the confirmation link mailed at sign-up, as the person would from their inbox. */
export async function confirmEmailViaMail(request: APIRequestContext, email: string) {
  const link = await mailedLink(email, /Confirm your email/);
  const res = await request.get(link);
  expect(res.ok(), `confirmation link: ${res.status()}`).toBe(true);
}
