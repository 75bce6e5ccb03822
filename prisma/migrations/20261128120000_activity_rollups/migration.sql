-- Activity roll-ups (docs/activity.md). The request log gains the estimated tokens of each result and the time its
-- row was written (`loggedAt`): the roll-up reads rows by write time, so a long call written minutes after it
-- started is still counted in the minute it started. Existing rows take the migration's time as `loggedAt`, so
-- the first roll-up reads them all once.
ALTER TABLE "tool_call_logs" ADD COLUMN "resultTokens" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "tool_call_logs" ADD COLUMN "loggedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
CREATE INDEX "tool_call_logs_loggedAt_idx" ON "tool_call_logs"("loggedAt");

CREATE TABLE "activity_minutes" (
    "teamId" TEXT NOT NULL,
    "bucket" TIMESTAMP(3) NOT NULL,
    "installationId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "calls" INTEGER NOT NULL,
    "errors" INTEGER NOT NULL,
    "resultBytes" BIGINT NOT NULL,
    "resultTokens" BIGINT NOT NULL,
    "latency" INTEGER[],

    CONSTRAINT "activity_minutes_pkey" PRIMARY KEY ("teamId","bucket","installationId","userId","method","target")
);
CREATE INDEX "activity_minutes_bucket_idx" ON "activity_minutes"("bucket");

CREATE TABLE "activity_days" (
    "teamId" TEXT NOT NULL,
    "bucket" DATE NOT NULL,
    "installationId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "calls" INTEGER NOT NULL,
    "errors" INTEGER NOT NULL,
    "resultBytes" BIGINT NOT NULL,
    "resultTokens" BIGINT NOT NULL,
    "latency" INTEGER[],

    CONSTRAINT "activity_days_pkey" PRIMARY KEY ("teamId","bucket","installationId","userId","method","target")
);
CREATE INDEX "activity_days_bucket_idx" ON "activity_days"("bucket");

CREATE TABLE "activity_rollup_state" (
    "id" TEXT NOT NULL,
    "watermark" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "activity_rollup_state_pkey" PRIMARY KEY ("id")
);

ALTER TABLE "activity_minutes" ADD CONSTRAINT "activity_minutes_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "activity_minutes" ADD CONSTRAINT "activity_minutes_installationId_fkey" FOREIGN KEY ("installationId") REFERENCES "installations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "activity_minutes" ADD CONSTRAINT "activity_minutes_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "activity_days" ADD CONSTRAINT "activity_days_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "activity_days" ADD CONSTRAINT "activity_days_installationId_fkey" FOREIGN KEY ("installationId") REFERENCES "installations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "activity_days" ADD CONSTRAINT "activity_days_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
