-- A scope an upstream asked for with 403 insufficient_scope (step-up): the next authorization asks for it too.
ALTER TABLE "upstream_oauth_tokens" ADD COLUMN "neededScope" TEXT;
