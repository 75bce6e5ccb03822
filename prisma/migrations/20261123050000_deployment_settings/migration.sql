-- Deployment settings: who may sign up, which teams may run stdio servers, which commands they may run.

-- CreateEnum
CREATE TYPE "SignupMode" AS ENUM ('invite_only', 'open');

-- AlterTable
ALTER TABLE "users" ADD COLUMN "deploymentOwner" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable: no team runs stdio servers until a deployment owner allows it.
ALTER TABLE "teams" ADD COLUMN "stdioAllowed" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "deployment_settings" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "signupMode" "SignupMode" NOT NULL DEFAULT 'invite_only',
    "commandAllowList" JSONB NOT NULL DEFAULT '[]',
    "updatedById" TEXT,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "deployment_settings_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "deployment_settings_singleton" CHECK ("id" = 1)
);

-- The one row, invite-only with an empty allow-list: nothing runs until a deployment owner decides.
INSERT INTO "deployment_settings" ("id") VALUES (1);

-- An existing deployment: its oldest account becomes the deployment owner (the first account would have).
UPDATE "users" SET "deploymentOwner" = true
WHERE "id" = (SELECT "id" FROM "users" ORDER BY "createdAt", "id" LIMIT 1);
