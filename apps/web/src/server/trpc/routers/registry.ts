import * as registry from "../../services/registry.service";
import { createTRPCRouter, teamAdminProcedure } from "../init";
import * as schema from "./registry.schema";

/**
 * Where a new server's definition comes from in the install flow: built-in presets, a pasted or uploaded
 * `server.json` (the official MCP registry's format), or a registry's entry by name. Each answers a draft that
 * prefills the form; nothing is stored until the admin saves it.
 */
export const registryRouter = createTRPCRouter({
  presets: teamAdminProcedure.output(schema.presets).query(() => registry.presets()),

  importDocument: teamAdminProcedure
    .input(schema.importDocumentInput)
    .output(schema.imported)
    .mutation(({ input }) => registry.importDocument(input.document)),

  importFromRegistry: teamAdminProcedure
    .input(schema.importFromRegistryInput)
    .output(schema.imported)
    .mutation(({ input }) => registry.importFromRegistry({ baseUrl: input.baseUrl, name: input.name })),
});
