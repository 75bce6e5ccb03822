-- CreateEnum
CREATE TYPE "ToolApprovalState" AS ENUM ('pending', 'approved', 'denied', 'used');

-- AlterTable
ALTER TABLE "installation_item_settings" ADD COLUMN "requiresApproval" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "installations" ADD COLUMN "approverIds" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateTable
CREATE TABLE "tool_approvals" (
    "id" TEXT NOT NULL,
    "teamId" TEXT NOT NULL,
    "installationId" TEXT NOT NULL,
    "callerId" TEXT NOT NULL,
    "toolName" TEXT NOT NULL,
    "requested" TEXT NOT NULL,
    "arguments" JSONB NOT NULL,
    "argumentsHash" TEXT NOT NULL,
    "policyVersion" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "policyId" TEXT,
    "state" "ToolApprovalState" NOT NULL DEFAULT 'pending',
    "decidedById" TEXT,
    "comment" TEXT,
    "decidedAt" TIMESTAMP(3),
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "usedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "tool_approvals_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "tool_approvals_teamId_state_createdAt_idx" ON "tool_approvals"("teamId", "state", "createdAt");

-- CreateIndex
CREATE INDEX "tool_approvals_callerId_installationId_toolName_argumentsHa_idx" ON "tool_approvals"("callerId", "installationId", "toolName", "argumentsHash");

-- AddForeignKey
ALTER TABLE "tool_approvals" ADD CONSTRAINT "tool_approvals_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tool_approvals" ADD CONSTRAINT "tool_approvals_installationId_fkey" FOREIGN KEY ("installationId") REFERENCES "installations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tool_approvals" ADD CONSTRAINT "tool_approvals_callerId_fkey" FOREIGN KEY ("callerId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tool_approvals" ADD CONSTRAINT "tool_approvals_decidedById_fkey" FOREIGN KEY ("decidedById") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;
