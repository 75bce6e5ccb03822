-- Tools a server lists only to clients that declared sampling, elicitation or roots (found at discovery).
ALTER TABLE "instance_tools" ADD COLUMN "needsClientCapabilities" BOOLEAN NOT NULL DEFAULT false;
