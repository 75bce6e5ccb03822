import { Queue } from "bullmq";
import { INSTANCE_QUEUE } from "@switchboard/core/contracts";
import { getDb } from "@switchboard/db/client";
import { seedInstallation, seedTemplate, type FieldSeed } from "@switchboard/db/seed/catalogue";
import { queueConnection } from "@switchboard/runtime/redis-client";
import { signedInCaller } from "./caller";

const suffix = () => Math.random().toString(36).slice(2, 8);

/** A team with an owner ("admin") and a plain member, both real accounts with tRPC callers. */
export async function teamWithMember() {
  const admin = await signedInCaller("admin");
  const team = await admin.caller.team.create({ name: `Console ${suffix()}` });
  const member = await signedInCaller("member");
  const inv = await admin.caller.team.invite({ teamId: team.id, email: member.email });
  await member.caller.invitation.accept({ invitationId: inv.id });
  return { admin, member, team };
}

/** Someone else's team, to prove NOT_FOUND across teams. */
export async function strangerWithTeam() {
  const stranger = await signedInCaller("stranger");
  const team = await stranger.caller.team.create({ name: `Other ${suffix()}` });
  return { stranger, team };
}

export const httpFields: FieldSeed[] = [
  { key: "X-Team-Key", tier: "team", kind: "header", secret: true, required: true },
  { key: "X-Region", tier: "team", kind: "header", defaultValue: "eu" },
  { key: "X-Api-Key", tier: "user", kind: "header", secret: true, required: true },
  { key: "X-Label", tier: "user", kind: "header" },
];

export async function seedHttpTemplate(teamId: string, fields: FieldSeed[] = httpFields) {
  return seedTemplate(getDb(), {
    teamId,
    slug: `http-${suffix()}`,
    name: "Remote demo",
    transport: "streamable_http",
    url: "http://127.0.0.1:9/mcp",
    fields,
  });
}

/** An installation with instances already created (as the worker would), for instance-level tests. */
export async function seedInstalled(teamId: string, memberValues?: Record<string, Record<string, string>>) {
  const template = await seedHttpTemplate(teamId);
  const installation = await seedInstallation(getDb(), {
    template,
    teamValues: { "X-Team-Key": "team-secret-value-0001" },
    memberValues,
  });
  return { template, installation };
}

/** The jobs waiting in this run's queue (no worker runs in these tests), by name. */
export async function queuedJobs(name: string): Promise<Array<Record<string, unknown>>> {
  const queue = new Queue(INSTANCE_QUEUE, {
    connection: queueConnection(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "producer", "web-test"),
    prefix: process.env.REDIS_PREFIX,
  });
  try {
    const jobs = await queue.getJobs(["waiting", "delayed", "prioritized"]);
    return jobs.filter((j) => j.name === name).map((j) => j.data as Record<string, unknown>);
  } finally {
    await queue.close();
  }
}

/** A team of an admin and a member, one installation with both of their instances (as the worker creates them). */
export async function teamWithInstances() {
  const { admin, member, team } = await teamWithMember();
  const { installation } = await seedInstalled(team.id, {
    [admin.userId]: { "X-Api-Key": "a" },
    [member.userId]: { "X-Api-Key": "m" },
  });
  const db = getDb();
  const instanceOf = (userId: string) =>
    db.instance.findFirstOrThrow({ where: { installationId: installation.id, userId } });
  const [adminsInstance, membersInstance] = await Promise.all([instanceOf(admin.userId), instanceOf(member.userId)]);
  return { admin, member, team, installation, adminsInstance, membersInstance, db };
}
