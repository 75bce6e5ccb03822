-- Host loopback ports a sandboxed stdio server may reach are now the deployment's to name (this column, edited
-- by deployment owners, plus the worker's STDIO_SANDBOX_LOOPBACK_PORTS), not a team's. Nothing is allowed at
-- first: ports installations stored before (their `sandbox` JSON's `loopbackPorts`) are left as they are and
-- stay inert, since every launch grants only the ports the deployment allows (never Switchboard's own).
ALTER TABLE "deployment_settings" ADD COLUMN "sandboxLoopbackPorts" INTEGER[] DEFAULT ARRAY[]::INTEGER[];
