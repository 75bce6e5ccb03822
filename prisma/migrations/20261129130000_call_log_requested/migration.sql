-- The name the client called (e.g. `my-demo-echo`) beside the upstream's (`echo`): the request log shows both.
ALTER TABLE "tool_call_logs" ADD COLUMN "requested" TEXT;
