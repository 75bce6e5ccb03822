-- Tool governance (issue 17): per-installation tool, prompt and template settings with exposed names and pinning,
-- members' hidden tools, toolsets (tokens may be limited to one) and the governance audit trail.
-- CreateEnum
CREATE TYPE "NewToolsPolicy" AS ENUM ('on', 'off_until_reviewed');

-- CreateEnum
CREATE TYPE "GovernedKind" AS ENUM ('tool', 'prompt', 'resource_template');

-- AlterTable
ALTER TABLE "installations" ADD COLUMN     "newTools" "NewToolsPolicy" NOT NULL DEFAULT 'on',
ADD COLUMN     "pinTools" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "personal_access_tokens" ADD COLUMN     "toolsetId" TEXT;

-- CreateTable
CREATE TABLE "installation_item_settings" (
    "id" TEXT NOT NULL,
    "installationId" TEXT NOT NULL,
    "kind" "GovernedKind" NOT NULL,
    "name" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "exposedName" TEXT,
    "exposedDescription" TEXT,
    "definition" JSONB,
    "definitionHash" TEXT,
    "approvedDefinition" JSONB,
    "approvedHash" TEXT,
    "rejectedHash" TEXT,
    "reviewedById" TEXT,
    "reviewedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "installation_item_settings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "member_hidden_tools" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "installationId" TEXT NOT NULL,
    "toolName" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "member_hidden_tools_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "toolsets" (
    "id" TEXT NOT NULL,
    "teamId" TEXT NOT NULL,
    "ownerId" TEXT,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "toolMode" "TokenMode" NOT NULL DEFAULT 'all',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "toolsets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "toolset_tools" (
    "id" TEXT NOT NULL,
    "toolsetId" TEXT NOT NULL,
    "installationId" TEXT NOT NULL,
    "toolName" TEXT NOT NULL,

    CONSTRAINT "toolset_tools_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "governance_audit_entries" (
    "id" TEXT NOT NULL,
    "teamId" TEXT NOT NULL,
    "installationId" TEXT,
    "actorId" TEXT,
    "actorLabel" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "detail" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "governance_audit_entries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "installation_item_settings_installationId_kind_name_key" ON "installation_item_settings"("installationId", "kind", "name");

-- CreateIndex
CREATE INDEX "member_hidden_tools_installationId_idx" ON "member_hidden_tools"("installationId");

-- CreateIndex
CREATE UNIQUE INDEX "member_hidden_tools_userId_installationId_toolName_key" ON "member_hidden_tools"("userId", "installationId", "toolName");

-- CreateIndex
CREATE UNIQUE INDEX "toolsets_teamId_ownerId_name_key" ON "toolsets"("teamId", "ownerId", "name");

-- CreateIndex
CREATE INDEX "toolset_tools_installationId_idx" ON "toolset_tools"("installationId");

-- CreateIndex
CREATE UNIQUE INDEX "toolset_tools_toolsetId_installationId_toolName_key" ON "toolset_tools"("toolsetId", "installationId", "toolName");

-- CreateIndex
CREATE INDEX "governance_audit_entries_teamId_createdAt_idx" ON "governance_audit_entries"("teamId", "createdAt");

-- CreateIndex
CREATE INDEX "governance_audit_entries_installationId_createdAt_idx" ON "governance_audit_entries"("installationId", "createdAt");

-- CreateIndex
CREATE INDEX "personal_access_tokens_toolsetId_idx" ON "personal_access_tokens"("toolsetId");

-- AddForeignKey
ALTER TABLE "personal_access_tokens" ADD CONSTRAINT "personal_access_tokens_toolsetId_fkey" FOREIGN KEY ("toolsetId") REFERENCES "toolsets"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "installation_item_settings" ADD CONSTRAINT "installation_item_settings_installationId_fkey" FOREIGN KEY ("installationId") REFERENCES "installations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "member_hidden_tools" ADD CONSTRAINT "member_hidden_tools_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "member_hidden_tools" ADD CONSTRAINT "member_hidden_tools_installationId_fkey" FOREIGN KEY ("installationId") REFERENCES "installations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "toolsets" ADD CONSTRAINT "toolsets_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "toolsets" ADD CONSTRAINT "toolsets_ownerId_fkey" FOREIGN KEY ("ownerId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "toolset_tools" ADD CONSTRAINT "toolset_tools_toolsetId_fkey" FOREIGN KEY ("toolsetId") REFERENCES "toolsets"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "toolset_tools" ADD CONSTRAINT "toolset_tools_installationId_fkey" FOREIGN KEY ("installationId") REFERENCES "installations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "governance_audit_entries" ADD CONSTRAINT "governance_audit_entries_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Team toolsets (no owner) have unique names too: the composite unique index above treats NULL owners as distinct.
CREATE UNIQUE INDEX "toolsets_team_wide_name_key" ON "toolsets"("teamId", "name") WHERE "ownerId" IS NULL;
-- Toolset names are path segments of /api/mcp/sets/{name}.
ALTER TABLE "toolsets" ADD CONSTRAINT "toolsets_name_check" CHECK ("name" ~ '^[a-z0-9]+(-[a-z0-9]+)*$' AND char_length("name") BETWEEN 2 AND 40);
