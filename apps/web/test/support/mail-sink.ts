import { mkdir, readdir, readFile, rename, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { SMTPServer } from "smtp-server";

export interface SunkMail {
  to: string[];
  subject: string;
  text: string;
}

/** Undoes quoted-printable (soft line breaks and =XX), which nodemailer uses for long lines such as links. */
function decodeQuotedPrintable(body: string): string {
  return body
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

function parse(raw: string, to: string[]): SunkMail {
  const split = raw.indexOf("\r\n\r\n");
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, " ");
  const body = raw.slice(split + 4);
  const subject = /^subject: (.*)$/im.exec(head)?.[1] ?? "";
  const qp = /^content-transfer-encoding: quoted-printable$/im.test(head);
  return { to, subject, text: qp ? decodeQuotedPrintable(body) : body };
}

/**
 * A real SMTP server for tests: the app sends account mail to it through SMTP_URL like to any mail server.
 * Messages are kept in memory and, when `dir` is given, written there one JSON file each (so a Playwright test
 * in another process can read them).
 */
export async function startMailSink({ dir }: { dir?: string } = {}) {
  const mails: SunkMail[] = [];
  if (dir) await mkdir(dir, { recursive: true });
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const mail = parse(
          Buffer.concat(chunks).toString("utf8"),
          session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
        );
        mails.push(mail);
        // Written aside and renamed, so a reader never sees half a file.
        const name = `${Date.now()}-${String(mails.length).padStart(6, "0")}`;
        const write = dir
          ? writeFile(path.join(dir, `${name}.tmp`), JSON.stringify(mail)).then(() =>
              rename(path.join(dir, `${name}.tmp`), path.join(dir, `${name}.json`)),
            )
          : Promise.resolve();
        write.then(() => done(), done);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The first link in the newest mail to `to` whose subject matches, from memory or from a sink's directory. */
export function linkIn(mail: SunkMail): string {
  const link = /https?:\/\/\S+/.exec(mail.text)?.[0];
  if (!link) throw new Error(`no link in the mail “${mail.subject}”`);
  return link;
}

export async function mailsIn(dir: string): Promise<SunkMail[]> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith(".json")).sort();
  return Promise.all(names.map(async (n) => JSON.parse(await readFile(path.join(dir, n), "utf8")) as SunkMail));
}

export function newestTo(mails: SunkMail[], to: string, subject: RegExp): SunkMail | undefined {
  return mails.filter((m) => m.to.includes(to.toLowerCase()) && subject.test(m.subject)).at(-1);
}
