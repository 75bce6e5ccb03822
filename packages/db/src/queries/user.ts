import type { DbTx } from "../client";

/** The address of an account and whether its owner confirmed it. */
export async function findUserEmail(db: DbTx, userId: string) {
  return db.user.findUnique({ where: { id: userId }, select: { email: true, emailVerified: true } });
}

/** How audit entries name a person: "Name (address)". */
export async function findUserLabel(db: DbTx, userId: string): Promise<string> {
  const user = await db.user.findUnique({ where: { id: userId }, select: { name: true, email: true } });
  return user ? `${user.name} (${user.email})` : userId;
}
