export { getDb, createDb, disconnectDb, Prisma, type Db, type DbTx } from "./client";
export * from "./generated/prisma/enums";
