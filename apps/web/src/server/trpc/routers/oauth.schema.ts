import { z } from "zod";

/** The oauth router's input and answers: starting a member's OAuth flow to an upstream, the redirect URI. */

export const startInput = z.object({ instanceId: z.string().min(1).max(64) });
export const started = z.object({ authorizationUrl: z.url(), expiresAt: z.date() });
export const redirectUri = z.object({ redirectUri: z.url() });
