/** Copy-paste configuration for the common MCP clients, pointing at the member's hosted route. */
export function clientConfigs(url: string, token: string) {
  const bearer = `Bearer ${token}`;
  return [
    {
      id: "claude-desktop",
      name: "Claude Desktop",
      where: "Settings → Developer → Edit Config (claude_desktop_config.json)",
      text: JSON.stringify(
        {
          mcpServers: {
            switchboard: {
              command: "npx",
              args: ["-y", "mcp-remote", url, "--header", "Authorization:${AUTH_HEADER}"],
              env: { AUTH_HEADER: bearer },
            },
          },
        },
        null,
        2,
      ),
    },
    {
      id: "claude-code",
      name: "Claude Code",
      where: "Run in a terminal",
      text: `claude mcp add --transport http switchboard ${url} --header "Authorization: ${bearer}"`,
    },
    {
      id: "cursor",
      name: "Cursor",
      where: "~/.cursor/mcp.json (or .cursor/mcp.json in a project)",
      text: JSON.stringify({ mcpServers: { switchboard: { url, headers: { Authorization: bearer } } } }, null, 2),
    },
    {
      id: "vscode",
      name: "VS Code",
      where: ".vscode/mcp.json in your workspace",
      text: JSON.stringify(
        { servers: { switchboard: { type: "http", url, headers: { Authorization: bearer } } } },
        null,
        2,
      ),
    },
  ];
}

/**
 * For clients that sign in themselves (OAuth): only the URL. The client reads the route's 401, finds
 * Switchboard's authorization server and opens the consent page in the browser.
 */
export function signInConfigs(url: string) {
  return [
    {
      id: "claude",
      name: "Claude",
      where: "Settings → Connectors → Add custom connector: paste the URL, then Connect",
      text: url,
    },
    {
      id: "chatgpt",
      name: "ChatGPT",
      where: "Settings → Connectors → Create: paste the URL as the MCP server URL, authentication OAuth",
      text: url,
    },
    {
      id: "claude-code",
      name: "Claude Code",
      where: "Run in a terminal, then /mcp in Claude Code to sign in",
      text: `claude mcp add --transport http switchboard ${url}`,
    },
    {
      id: "vscode",
      name: "VS Code",
      where: ".vscode/mcp.json in your workspace; VS Code asks you to sign in on first use",
      text: JSON.stringify({ servers: { switchboard: { type: "http", url } } }, null, 2),
    },
    {
      id: "cursor",
      name: "Cursor",
      where: "~/.cursor/mcp.json; Cursor shows “Needs login” for the server, click it",
      text: JSON.stringify({ mcpServers: { switchboard: { url } } }, null, 2),
    },
  ];
}
