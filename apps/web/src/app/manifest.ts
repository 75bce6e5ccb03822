import type { MetadataRoute } from "next";

/** Lets a phone add the console to its home screen under its name and icon. */
export default function manifest(): MetadataRoute.Manifest {
  return {
    name: "Switchboard",
    short_name: "Switchboard",
    description: "One managed gateway for your team's MCP servers",
    start_url: "/",
    display: "standalone",
    background_color: "#f7f7f8",
    theme_color: "#1b1d22",
    icons: [{ src: "/icon.svg", sizes: "any", type: "image/svg+xml" }],
  };
}
