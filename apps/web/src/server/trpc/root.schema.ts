import { z } from "zod";

/** The answer of the root router's own procedure, `me`: the signed-in user, or null. */
export const meOutput = z
  .object({ id: z.string(), name: z.string(), email: z.string(), emailVerified: z.boolean() })
  .nullable();
