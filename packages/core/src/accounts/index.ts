export {
  TEAM_ROLES,
  isTeamAdminRole,
  isTeamRole,
  leavesTeamWithoutOwner,
  memberScope,
  roleChangeProblem,
  type TeamRole,
} from "./roles";
export { SLUG_MAX, SLUG_MIN, SLUG_PATTERN, slugProblem, slugSchema, slugify } from "./slug";
export { ownerSuccession, type OwnerSuccession, type SuccessionMember } from "./succession";
export { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, passwordProblem, type PasswordContext } from "./password";
export {
  GROUP_NAME_MAX,
  groupNameProblem,
  identityGroupPlan,
  normalizeGroupName,
  roleRank,
  teamsForGroups,
  type IdentityGroupMapping,
  type IdentityGroupMembership,
  type IdentityGroupPlan,
} from "./identity-groups";
