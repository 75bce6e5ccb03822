// @switchboard/core: MCP plumbing and policies shared by web and worker. Import from the subpaths
// (`@switchboard/core/status`, `@switchboard/core/proxy`, ...); this root re-exports nothing on purpose so that
// a consumer only loads what it uses.
export {};
