import { z } from "zod";
import { parseEgressAllow } from "./policy";

/**
 * The egress variables, parsed the same way by every process that opens connections to configured URLs (the
 * gateway and the worker spread this into their env schemas; core itself reads no environment).
 */
export const egressEnvShape = {
  /** Remote servers on private networks (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7): refused unless "true". */
  EGRESS_ALLOW_PRIVATE: z
    .enum(["true", "false"], { error: 'EGRESS_ALLOW_PRIVATE must be "true" or "false"' })
    .default("false")
    .transform((v) => v === "true"),
  /** host:port exceptions to the egress rules (comma-separated, `host:*` for every port), e.g. the demo's 127.0.0.1:3001. */
  EGRESS_ALLOW: z
    .string()
    .default("")
    .transform((value, ctx) => {
      try {
        return parseEgressAllow(value);
      } catch (err) {
        ctx.addIssue({ code: "custom", message: `EGRESS_ALLOW: ${(err as Error).message}` });
        return z.NEVER;
      }
    }),
};
