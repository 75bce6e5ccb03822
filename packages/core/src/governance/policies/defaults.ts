/**
 * The policies a team has before it writes its own: what governance does today. Turned-off tools never reach
 * the route (governance removes them first), so everything routed is permitted; a tool an admin marked as
 * needing approval is held (the `requiresApproval` setting, read from the call's governance). The route does not
 * evaluate these: a team without policies is decided by core `defaultPolicyDecision`, which says the same
 * without Cedar (the tests hold them equal). They are shown in the console as the starting point.
 */
export const DEFAULT_TEAM_POLICIES = `// The defaults: every member may list and use every tool, resource and prompt governance lets through.
// Tools an admin marked "requires approval" on the installation's page are held for an approver.
@id("default-permit")
permit(principal, action, resource);
`;
