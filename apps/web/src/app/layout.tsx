import type { Metadata } from "next";
import { connection } from "next/server";
import { TRPCReactProvider } from "~/trpc/react";
import "./globals.css";

export const metadata: Metadata = { title: "Switchboard", description: "One managed gateway for your team's MCP servers" };

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // Every page renders per request, so that each gets the nonce of its Content Security Policy (src/proxy.ts).
  await connection();
  return (
    <html lang="en">
      <body>
        <TRPCReactProvider>{children}</TRPCReactProvider>
      </body>
    </html>
  );
}
