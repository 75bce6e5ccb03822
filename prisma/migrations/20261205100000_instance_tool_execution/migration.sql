-- A tool's `execution` as its server declared it (2025-11-25: `taskSupport`, whether calls may or must be tasks).
ALTER TABLE "instance_tools" ADD COLUMN "execution" JSONB;
