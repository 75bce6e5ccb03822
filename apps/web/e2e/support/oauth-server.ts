import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../../..");

/** The OAuth-protected MCP test server in its own process, with the control calls the journey needs. */
export class OAuthServerProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly mcpUrl: string,
    private readonly controlUrl: string,
  ) {}

  static async start(): Promise<OAuthServerProcess> {
    const child = spawn(path.join(root, "node_modules/.bin/tsx"), [path.join(here, "oauth-server-process.ts")], {
      cwd: root,
      stdio: ["ignore", "pipe", "inherit"],
    });
    const line = await new Promise<string>((resolve, reject) => {
      let buffer = "";
      child.stdout!.on("data", (d) => {
        buffer += d;
        const nl = buffer.indexOf("\n");
        if (nl >= 0) resolve(buffer.slice(0, nl));
      });
      child.once("exit", (code) => reject(new Error(`the OAuth test server exited (${code})`)));
    });
    const { mcpUrl, controlUrl } = JSON.parse(line) as { mcpUrl: string; controlUrl: string };
    return new OAuthServerProcess(child, mcpUrl, controlUrl);
  }

  async setAccessTokenTtl(ms: number) {
    await fetch(`${this.controlUrl}/ttl?ms=${ms}`, { method: "POST" });
  }

  /** Revokes the n-th authorization granted (1 = first), and the tokens refreshed from it. */
  async revokeGrant(n: number) {
    await fetch(`${this.controlUrl}/revoke-grant?n=${n}`, { method: "POST" });
  }

  /** Registers a client by hand at the authorization server, as an admin does at a provider without DCR. */
  async preRegister(input: {
    redirectUris: string[];
    secret?: string;
  }): Promise<{ clientId: string; clientSecret?: string }> {
    const res = await fetch(`${this.controlUrl}/pre-register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(input),
    });
    if (!res.ok) throw new Error(`pre-register failed (${res.status})`);
    return res.json();
  }

  async revokeAll() {
    await fetch(`${this.controlUrl}/revoke-all`, { method: "POST" });
  }

  async stats(): Promise<{
    registrations: number;
    refreshes: number;
    authorizations: number;
    codeExchanges: number;
    accepted: number;
  }> {
    return (await fetch(`${this.controlUrl}/stats`)).json();
  }

  async stop() {
    if (this.child.exitCode !== null) return;
    this.child.kill("SIGTERM");
    await new Promise((r) => this.child.once("exit", r));
  }
}
