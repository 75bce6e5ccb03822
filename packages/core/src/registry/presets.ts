import type { ServerJson } from "./server-json";

/**
 * Built-in presets for a new team's first install: the MCP reference servers, written in the registry's
 * `server.json` format so they go through the same import as a pasted document. Versions are left to the
 * launcher (latest); an admin can pin one in the form.
 */
export const PRESETS: readonly ServerJson[] = Object.freeze([
  {
    name: "io.github.modelcontextprotocol/server-everything",
    title: "Everything (reference test server)",
    description: "Exercises every MCP feature: tools, resources, prompts, sampling. Good for a first try.",
    packages: [
      { registryType: "npm", identifier: "@modelcontextprotocol/server-everything", transport: { type: "stdio" } },
    ],
  },
  {
    name: "io.github.modelcontextprotocol/server-filesystem",
    title: "Filesystem",
    description: "Read and write files inside the directories you allow.",
    packages: [
      {
        registryType: "npm",
        identifier: "@modelcontextprotocol/server-filesystem",
        transport: { type: "stdio" },
        packageArguments: [
          {
            type: "positional",
            valueHint: "allowed_directory",
            description: "A directory the server may access",
            isRequired: true,
          },
        ],
      },
    ],
  },
  {
    name: "io.github.modelcontextprotocol/server-memory",
    title: "Memory",
    description: "A knowledge-graph memory the model can write to and read back.",
    packages: [
      {
        registryType: "npm",
        identifier: "@modelcontextprotocol/server-memory",
        transport: { type: "stdio" },
        environmentVariables: [{ name: "MEMORY_FILE_PATH", description: "Where the memory is stored (a file path)" }],
      },
    ],
  },
  {
    name: "io.github.modelcontextprotocol/server-sequential-thinking",
    title: "Sequential thinking",
    description: "Structured, step-by-step problem solving.",
    packages: [
      {
        registryType: "npm",
        identifier: "@modelcontextprotocol/server-sequential-thinking",
        transport: { type: "stdio" },
      },
    ],
  },
  {
    name: "io.github.modelcontextprotocol/mcp-server-fetch",
    title: "Fetch",
    description: "Fetches web pages and turns them into markdown (needs outbound network).",
    packages: [{ registryType: "pypi", identifier: "mcp-server-fetch", transport: { type: "stdio" } }],
  },
  {
    name: "io.github.modelcontextprotocol/mcp-server-git",
    title: "Git",
    description: "Reads and searches a Git repository.",
    packages: [
      {
        registryType: "pypi",
        identifier: "mcp-server-git",
        transport: { type: "stdio" },
        packageArguments: [
          { type: "named", name: "--repository", description: "Path of the Git repository", isRequired: true },
        ],
      },
    ],
  },
  {
    name: "io.github.modelcontextprotocol/mcp-server-time",
    title: "Time",
    description: "Current time and time-zone conversions.",
    packages: [{ registryType: "pypi", identifier: "mcp-server-time", transport: { type: "stdio" } }],
  },
]);
