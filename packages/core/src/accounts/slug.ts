/** A team's URL name: the one rule for every place that creates or checks a slug. */
export const TEAM_SLUG_MIN = 2;
export const TEAM_SLUG_MAX = 40;
export const TEAM_SLUG_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** Why a slug is not acceptable, as a sentence for the person who typed it, or null when it is fine. */
export function teamSlugProblem(slug: string): string | null {
  if (slug.length < TEAM_SLUG_MIN) return `Use at least ${TEAM_SLUG_MIN} characters.`;
  if (slug.length > TEAM_SLUG_MAX) return `Use at most ${TEAM_SLUG_MAX} characters.`;
  if (!TEAM_SLUG_PATTERN.test(slug)) return "Use lowercase letters, digits and single dashes.";
  return null;
}

/** A slug proposed from a team's name (may be empty when the name has no letter or digit). */
export function slugify(name: string): string {
  return name
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, TEAM_SLUG_MAX)
    .replace(/-+$/, "");
}
