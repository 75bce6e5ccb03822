import { z } from "zod";
import * as registry from "../../services/registry.service";
import { createTRPCRouter, teamAdminProcedure } from "../init";

const draftField = z.object({
  key: z.string(),
  label: z.string(),
  tier: z.enum(["team", "user"]),
  kind: z.enum(["arg", "env", "header", "query"]),
  type: z.enum(["string", "number", "boolean", "url"]),
  required: z.boolean(),
  secret: z.boolean(),
  defaultValue: z.string().optional(),
  description: z.string(),
});
const draft = z.object({
  slug: z.string(),
  name: z.string(),
  description: z.string(),
  transport: z.enum(["stdio", "sse", "streamable_http"]),
  command: z.string().optional(),
  args: z.array(z.string()),
  url: z.string().optional(),
  oauth: z.boolean(),
  fields: z.array(draftField),
});
const imported = z.object({ draft, notes: z.array(z.string()) });

/**
 * Where a new server's definition comes from in the install flow: built-in presets, a pasted or uploaded
 * `server.json` (the official MCP registry's format), or a registry's entry by name. Each answers a draft that
 * prefills the form; nothing is stored until the admin saves it.
 */
export const registryRouter = createTRPCRouter({
  presets: teamAdminProcedure.output(z.array(z.object({ id: z.string(), draft }))).query(() => registry.presets()),

  importDocument: teamAdminProcedure
    .input(
      z.object({
        document: z
          .string()
          .min(2)
          .max(512 * 1024),
      }),
    )
    .output(imported)
    .mutation(({ input }) => registry.importDocument(input.document)),

  importFromRegistry: teamAdminProcedure
    .input(z.object({ baseUrl: z.url().max(2000), name: z.string().trim().min(1).max(200) }))
    .output(imported)
    .mutation(({ input }) => registry.importFromRegistry({ baseUrl: input.baseUrl, name: input.name })),
});
