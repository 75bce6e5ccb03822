-- Per-installation sandbox settings of stdio servers (limits, outbound network, allowed host ports).
-- An empty object means "the host's defaults".
ALTER TABLE "installations" ADD COLUMN "sandbox" JSONB NOT NULL DEFAULT '{}';
