-- The audit trail (hash-chained per team) and its retention settings.
ALTER TABLE "teams" ADD COLUMN "requestLogRetentionDays" INTEGER NOT NULL DEFAULT 30;
ALTER TABLE "teams" ADD COLUMN "rollupRetentionDays" INTEGER NOT NULL DEFAULT 400;
ALTER TABLE "teams" ADD COLUMN "auditRetentionDays" INTEGER NOT NULL DEFAULT 365;

CREATE TABLE "audit_events" (
    "id" TEXT NOT NULL,
    "chain" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "teamId" TEXT,
    "actorId" TEXT,
    "actorLabel" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "targetType" TEXT,
    "targetId" TEXT,
    "targetLabel" TEXT,
    "before" JSONB,
    "after" JSONB,
    "detail" JSONB NOT NULL DEFAULT '{}',
    "ip" TEXT,
    "client" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "prevHash" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    CONSTRAINT "audit_events_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "audit_events_chain_seq_key" ON "audit_events"("chain", "seq");
CREATE INDEX "audit_events_teamId_createdAt_idx" ON "audit_events"("teamId", "createdAt");
CREATE INDEX "audit_events_chain_createdAt_idx" ON "audit_events"("chain", "createdAt");
CREATE INDEX "audit_events_action_createdAt_idx" ON "audit_events"("action", "createdAt");

CREATE TABLE "audit_anchors" (
    "chain" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "hash" TEXT NOT NULL,
    "prunedCount" INTEGER NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    CONSTRAINT "audit_anchors_pkey" PRIMARY KEY ("chain")
);
