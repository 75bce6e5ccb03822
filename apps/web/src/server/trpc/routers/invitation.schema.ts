import { z } from "zod";

/** The invitation router's input and answers: an invitation link as its holder sees it, and accepting it. */

export const invitationInput = z.object({ invitationId: z.string().min(1).max(64) });

export const invitationView = z.object({
  id: z.string(),
  teamName: z.string(),
  teamSlug: z.string(),
  invitedBy: z.string(),
  role: z.string(),
  email: z.string(),
  status: z.enum(["pending", "accepted", "rejected", "canceled", "expired"]),
  forYou: z.boolean(),
});

export const acceptedInvitation = z.object({ teamSlug: z.string() });
