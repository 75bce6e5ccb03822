import { randomBytes } from "node:crypto";
import { getDb } from "@switchboard/db/client";
import { getAuth } from "~/server/auth";
import { signedInCaller } from "./caller";

export const APP = process.env.APP_URL ?? "http://localhost:3000";

/** A signed-up account made deployment owner (as the first account of a deployment is). */
export async function deploymentOwner() {
  const owner = await signedInCaller("sso-owner");
  await getDb().user.update({ where: { id: owner.userId }, data: { deploymentOwner: true } });
  return owner;
}

/** A domain of its own for each test: providers of other test files own theirs. */
export function uniqueDomain(label: string): string {
  return `${label}-${randomBytes(4).toString("hex")}.example.test`;
}

export function cookiesOf(res: Response): string {
  return res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

/** A POST to Better Auth as the browser sends it (same origin, JSON). */
export function authPost(path: string, body: unknown, cookie = "") {
  return getAuth().handler(
    new Request(`${APP}/api/auth${path}`, {
      method: "POST",
      headers: { origin: APP, "content-type": "application/json", cookie, "user-agent": "sso-test/1" },
      body: JSON.stringify(body),
    }),
  );
}

/** "Sign in with SSO" for an address: where the browser goes next, and the cookies it keeps for the callback. */
export async function startSso(email: string, extra: Record<string, unknown> = {}) {
  const res = await authPost("/sign-in/sso", { email, callbackURL: "/teams", ...extra });
  const body = (await res.json()) as { url?: string; redirect?: boolean; message?: string; code?: string };
  return { status: res.status, body, cookie: cookiesOf(res) };
}

/** The browser arriving back at the console from the identity provider (a GET, or the SAML POST). */
export async function arriveAtConsole(url: string, cookie: string, form?: Record<string, string>) {
  const res = await getAuth().handler(
    new Request(url, {
      method: form ? "POST" : "GET",
      headers: {
        cookie,
        "user-agent": "sso-test/1",
        ...(form ? { "content-type": "application/x-www-form-urlencoded", origin: "null" } : {}),
      },
      body: form ? new URLSearchParams(form).toString() : undefined,
      redirect: "manual",
    }),
  );
  return { status: res.status, location: res.headers.get("location"), cookie: cookiesOf(res), res };
}
