import type { DbTx } from "../client";

/** The address of an account and whether its owner confirmed it. */
export async function findUserEmail(db: DbTx, userId: string) {
  return db.user.findUnique({ where: { id: userId }, select: { email: true, emailVerified: true } });
}
