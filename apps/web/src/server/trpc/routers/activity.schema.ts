import { z } from "zod";

const summary = {
  calls: z.number().int(),
  errors: z.number().int(),
  errorRate: z.number(),
  p50Ms: z.number().nullable(),
  p95Ms: z.number().nullable(),
  resultBytes: z.number(),
  resultTokens: z.number(),
  perMinute: z.number(),
};

const tool = z.object({
  key: z.string(),
  installationId: z.string(),
  server: z.string(),
  method: z.string(),
  target: z.string(),
  ...summary,
});

export const activityDashboardOutput = z.object({
  range: z.enum(["hour", "day", "week"]),
  stepMs: z.number(),
  from: z.date(),
  to: z.date(),
  scope: z.enum(["team", "own"]),
  total: z.object(summary),
  series: z.array(z.object({ at: z.date(), ...summary })),
  servers: z.array(z.object({ installationId: z.string(), name: z.string(), ...summary })),
  members: z.array(z.object({ userId: z.string(), name: z.string(), ...summary })),
  topTools: z.array(tool),
  slowestTools: z.array(tool),
  tools: z.array(tool),
  failing: z.array(
    z.object({
      instanceId: z.string().nullable(),
      installationId: z.string(),
      server: z.string(),
      userId: z.string(),
      member: z.string(),
      status: z.string().nullable(),
      calls: z.number().int(),
      errors: z.number().int(),
      errorRate: z.number(),
    }),
  ),
});

export const memberUsageOutput = z.object({
  since: z.date(),
  scope: z.enum(["team", "own"]),
  rows: z.array(
    z.object({
      day: z.string(),
      userId: z.string(),
      member: z.string(),
      installationId: z.string(),
      server: z.string(),
      method: z.string(),
      target: z.string(),
      calls: z.number().int(),
      errors: z.number().int(),
      resultBytes: z.number(),
      resultTokens: z.number(),
    }),
  ),
});

// --- inputs ---------------------------------------------------------------------------------------------------

export const dashboardInput = z.object({ range: z.enum(["hour", "day", "week"]) });
export const usageInput = z.object({ days: z.number().int().min(1).max(90).default(7) });
