import nodemailer, { type Transporter } from "nodemailer";
import type { Logger } from "pino";

export interface Mail {
  to: string;
  subject: string;
  text: string;
  /** The one link the mail is about; printed to the log when no SMTP server is configured. */
  link: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/**
 * Mail over SMTP when SMTP_URL is set: account mail from the console (verification, password reset) and approval
 * requests from the gateway. Without it the link is written to the log instead, so a single-machine install (and
 * the demo) still works: the operator passes the link on.
 */
export function createMailer({
  smtpUrl,
  from,
  logger,
}: {
  smtpUrl: string | undefined;
  from: string;
  logger: Logger;
}): Mailer {
  let transport: Transporter | undefined;
  return {
    async send(mail) {
      if (!smtpUrl) {
        logger.warn(
          { to: mail.to, subject: mail.subject, link: mail.link },
          "no SMTP_URL: pass this link on to the person yourself",
        );
        return;
      }
      transport ??= nodemailer.createTransport(smtpUrl);
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    },
  };
}

/** Sends without making the caller wait: an answer must not take longer when the address exists (or a call be held longer). */
export function sendInBackground(mailer: Mailer, mail: Mail, logger: Logger): void {
  mailer
    .send(mail)
    .catch((err: unknown) => logger.error({ err, to: mail.to, subject: mail.subject }, "could not send mail"));
}
