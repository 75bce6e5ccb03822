"use client";

import { createAuthClient } from "better-auth/react";

/**
 * Sign-up, sign-in, password reset and change, email confirmation. Teams, members and invitations go through
 * tRPC only: Better Auth's organization endpoints are closed over HTTP (server/auth/guard-plugin.ts).
 */
export const authClient = createAuthClient();
