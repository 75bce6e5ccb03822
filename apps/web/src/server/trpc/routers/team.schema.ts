import { slugSchema, TEAM_ROLES } from "@switchboard/core/accounts";
import { z } from "zod";
import { page, paged, person, search } from "./shared.schema";

/** The team router's inputs and answers: the caller's teams, members and invitations. */

// --- inputs ----------------------------------------------------------------------------------------------------------

export const createTeamInput = z.object({
  name: z.string().trim().min(2, "Use at least 2 characters.").max(60, "Use at most 60 characters."),
  slug: slugSchema.optional(),
});
export const membersInput = z.object({ ...page, search });
export const inviteInput = z.object({
  email: z.email("Enter a valid email address.").transform((e) => e.toLowerCase()),
  role: z.enum(["admin", "member"]).default("member"),
});
export const invitationInput = z.object({ invitationId: z.string().min(1) });
export const changeRoleInput = z.object({ memberId: z.string().min(1), role: z.enum(TEAM_ROLES) });
export const memberInput = z.object({ memberId: z.string().min(1) });
export const deleteTeamInput = z.object({ confirmSlug: z.string().max(100) });

// --- answers ---------------------------------------------------------------------------------------------------------

export const teamSummary = z.object({ id: z.string(), name: z.string(), slug: z.string() });
export const teamList = z.array(
  teamSummary.extend({ role: z.string(), memberCount: z.number(), installationCount: z.number() }),
);
export const currentTeam = teamSummary.extend({ role: z.string() });

export const memberPage = paged(
  z.object({ id: z.string(), role: z.string(), joinedAt: z.date(), lastActiveAt: z.date().nullable(), user: person }),
);

export const pendingInvitations = z.array(
  z.object({
    id: z.string(),
    email: z.string(),
    role: z.string(),
    expiresAt: z.date(),
    invitedBy: z.string(),
    url: z.string(),
  }),
);

export const sentInvitation = z.object({
  id: z.string(),
  email: z.string(),
  role: z.enum(["member", "admin", "owner"]),
  expiresAt: z.date(),
  url: z.string(),
});
