import type { Metadata, Viewport } from "next";
import { connection } from "next/server";
import { ToastProvider } from "~/components/ui/toast";
import { TRPCReactProvider } from "~/trpc/react";
import "./globals.css";
import "./console.css";

export const metadata: Metadata = {
  title: "Switchboard",
  description: "One managed gateway for your team's MCP servers",
};
export const viewport: Viewport = {
  colorScheme: "light dark",
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#f7f7f8" },
    { media: "(prefers-color-scheme: dark)", color: "#131417" },
  ],
};

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // Every page renders per request, so that each gets the nonce of its Content Security Policy (src/proxy.ts).
  await connection();
  return (
    <html lang="en">
      <body>
        <TRPCReactProvider>
          <ToastProvider>{children}</ToastProvider>
        </TRPCReactProvider>
      </body>
    </html>
  );
}
