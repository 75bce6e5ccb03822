-- AlterTable
ALTER TABLE "installations" ADD COLUMN "guardrails" JSONB NOT NULL DEFAULT '{}';

-- AlterTable
ALTER TABLE "tool_call_logs" ADD COLUMN "guardrailFindings" JSONB;
