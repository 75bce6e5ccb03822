-- The authorization server's issuer a pending OAuth flow started with (null for flows started before this column).
ALTER TABLE "oauth_pending_flows" ADD COLUMN "issuer" TEXT;
