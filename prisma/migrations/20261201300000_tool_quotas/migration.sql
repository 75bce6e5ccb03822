-- CreateEnum
CREATE TYPE "QuotaSubject" AS ENUM ('member', 'token', 'installation', 'tool');

-- CreateEnum
CREATE TYPE "QuotaWindow" AS ENUM ('minute', 'hour', 'day');

-- CreateTable
CREATE TABLE "tool_quotas" (
    "id" TEXT NOT NULL,
    "teamId" TEXT NOT NULL,
    "installationId" TEXT,
    "toolName" TEXT,
    "subject" "QuotaSubject" NOT NULL,
    "window" "QuotaWindow" NOT NULL,
    "max" INTEGER NOT NULL,
    "writeMax" INTEGER,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "tool_quotas_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "tool_quotas_teamId_idx" ON "tool_quotas"("teamId");

-- CreateIndex
CREATE INDEX "tool_quotas_installationId_idx" ON "tool_quotas"("installationId");

-- AddForeignKey
ALTER TABLE "tool_quotas" ADD CONSTRAINT "tool_quotas_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tool_quotas" ADD CONSTRAINT "tool_quotas_installationId_fkey" FOREIGN KEY ("installationId") REFERENCES "installations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
