export { TEAM_ROLES, isTeamAdminRole, isTeamRole, roleChangeProblem, type TeamRole } from "./roles";
export { TEAM_SLUG_MAX, TEAM_SLUG_MIN, TEAM_SLUG_PATTERN, slugify, teamSlugProblem } from "./slug";
export { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, passwordProblem, type PasswordContext } from "./password";
