-- Argument values supplied by a team or a member must not become options of the command: per arg field, refuse
-- values starting with "-" (the default, also for existing fields) or place the field's values after "--".
CREATE TYPE "ArgOptionValues" AS ENUM ('refuse', 'after_separator');

ALTER TABLE "template_config_fields" ADD COLUMN "optionValues" "ArgOptionValues" NOT NULL DEFAULT 'refuse';
