import "server-only";
import type { Db } from "@switchboard/db/client";
import { getCipher } from "@switchboard/db/crypto";
import { findInstallationOAuthClient, writeInstallationOAuthClient } from "@switchboard/db/queries/upstream-oauth";
import { AppError } from "../errors";
import type { Actor } from "./actor";

/** What the console may know about an installation's pre-registered OAuth client: never the secret. */
export interface OAuthClientView {
  clientId: string | null;
  secretSet: boolean;
}

async function load(db: Db, teamId: string, installationId: string) {
  const found = await findInstallationOAuthClient(db, { teamId, installationId });
  if (!found) throw new AppError("NOT_FOUND", "Installed server not found.");
  return found;
}

export async function get({
  db,
  actor,
  installationId,
}: {
  db: Db;
  actor: Actor;
  installationId: string;
}): Promise<OAuthClientView> {
  const { teamId } = actor;
  const { clientId, secretSet } = await load(db, teamId, installationId);
  return { clientId, secretSet };
}

/**
 * Sets the client the admin registered at the provider, or clears it (`clientId` null) to go back to dynamic
 * registration. An empty secret keeps the stored one only for the same client id: a secret belongs to its
 * client, so a new id without a secret is a public client.
 */
export async function set({
  db,
  actor,
  installationId,
  clientId,
  clientSecret,
}: {
  db: Db;
  actor: Actor;
  installationId: string;
  clientId: string | null;
  clientSecret?: string;
}): Promise<OAuthClientView> {
  const { teamId } = actor;
  const current = await load(db, teamId, installationId);
  if (!current.oauth) throw new AppError("INVALID_INPUT", "This server does not use OAuth, so it has no OAuth client.");
  const secret = clientSecret ? clientSecret : clientId !== null && clientId === current.clientId ? undefined : null;
  if (!(await writeInstallationOAuthClient(db, getCipher(), { teamId, installationId, clientId, secret }))) {
    throw new AppError("NOT_FOUND", "Installed server not found.");
  }
  return get({ db, actor, installationId });
}
