import type { Db } from "@switchboard/db/client";
import { getCipher } from "@switchboard/db/crypto";
import { createInstance } from "@switchboard/db/queries/installation";
import { addMember, allowCommands, makeTeam, makeUser, uid } from "@switchboard/db/testing";

export interface FieldSpec {
  key: string;
  tier: "team" | "user";
  kind: "arg" | "env" | "header" | "query";
  required?: boolean;
  secret?: boolean;
}

/** A team with an owner and `members` more members, and an installation of an HTTP or stdio template. */
export async function makeInstallation(
  db: Db,
  opts: {
    url?: string;
    stdio?: { command: string; args: string[] };
    fields?: FieldSpec[];
    teamValues?: Record<string, { value: string; secret?: boolean }>;
    members?: number;
  } = {},
) {
  const owner = await makeUser(db);
  // A deployment that lets this team run this program (makeTeam allows stdio servers by default).
  const team = await makeTeam(db, owner);
  if (opts.stdio) await allowCommands(db, [{ kind: "executable", name: opts.stdio.command }]);
  const users = [owner];
  for (let i = 0; i < (opts.members ?? 0); i++) {
    const user = await makeUser(db);
    await addMember(db, team, user);
    users.push(user);
  }
  const template = await db.serverTemplate.create({
    data: {
      teamId: team.id,
      slug: uid("tpl-"),
      name: "Test server",
      transport: opts.stdio ? "stdio" : "streamable_http",
      command: opts.stdio?.command,
      args: opts.stdio?.args ?? [],
      url: opts.stdio ? null : (opts.url ?? "http://127.0.0.1:9/mcp"),
      fields: {
        create: (opts.fields ?? []).map((f, position) => ({
          key: f.key,
          tier: f.tier,
          kind: f.kind,
          required: f.required ?? false,
          secret: f.secret ?? false,
          position,
        })),
      },
    },
  });
  const cipher = getCipher();
  const installation = await db.installation.create({
    data: {
      teamId: team.id,
      templateId: template.id,
      slug: uid("srv").slice(0, 20).toLowerCase(),
      name: "Test server",
      values: {
        create: Object.entries(opts.teamValues ?? {}).map(([key, v]) => ({
          key,
          value: v.secret ? cipher.encrypt(v.value) : v.value,
          encrypted: v.secret ?? false,
        })),
      },
    },
  });
  return { owner, team, users, template, installation };
}

/** An instance for the owner, in `provisioning` (the worker's discovery job takes it from there). */
export async function makeInstance(db: Db, opts: Parameters<typeof makeInstallation>[1] = {}) {
  const setup = await makeInstallation(db, opts);
  const instance = await createInstance(db, {
    installationId: setup.installation.id,
    userId: setup.owner.id,
    status: "provisioning",
    at: new Date(),
  });
  if (!instance) throw new Error("instance not created");
  return { ...setup, instance };
}
