-- Roles and team slugs follow our rules (@switchboard/core/accounts) in the database too, so no path around the
-- services (Better Auth's organization endpoints accepted `admin,member` and `Odd Slug/../x?`) can store others.

-- A role outside the three becomes the weakest one, and an invitation never makes an owner.
UPDATE "memberships" SET "role" = 'member' WHERE "role" NOT IN ('owner', 'admin', 'member');
UPDATE "invitations" SET "role" = 'member' WHERE "role" NOT IN ('admin', 'member');
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_role_check" CHECK ("role" IN ('owner', 'admin', 'member'));
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_role_check" CHECK ("role" IN ('admin', 'member'));

-- A slug that breaks the rule gets a fresh one from the team's id (unique, since ids are), and the team keeps its name.
UPDATE "teams" SET "slug" = 'team-' || substr(md5("id"), 1, 12)
WHERE NOT ("slug" ~ '^[a-z0-9]+(-[a-z0-9]+)*$' AND char_length("slug") BETWEEN 2 AND 40);
ALTER TABLE "teams" ADD CONSTRAINT "teams_slug_check" CHECK ("slug" ~ '^[a-z0-9]+(-[a-z0-9]+)*$' AND char_length("slug") BETWEEN 2 AND 40);
