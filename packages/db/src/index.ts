export { getDb, createDb, disconnectDb, Prisma, type Db, type DbTx, type Tx } from "./client";
export * from "./generated/prisma/enums";
