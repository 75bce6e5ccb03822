import { z } from "zod";

/** A URL name (a team's, a server template's): the one rule for every place that creates or checks a slug. */
export const SLUG_MIN = 2;
export const SLUG_MAX = 40;
export const SLUG_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** Why a slug is not acceptable, as a sentence for the person who typed it, or null when it is fine. */
export function slugProblem(slug: string): string | null {
  if (slug.length < SLUG_MIN) return `Use at least ${SLUG_MIN} characters.`;
  if (slug.length > SLUG_MAX) return `Use at most ${SLUG_MAX} characters.`;
  if (!SLUG_PATTERN.test(slug)) return "Use lowercase letters, digits and single dashes.";
  return null;
}

/** The rule as a form field: trimmed, then checked with `slugProblem` (its sentence is the field's error). */
export const slugSchema = z
  .string()
  .trim()
  .max(SLUG_MAX + 20)
  .superRefine((slug, ctx) => {
    const problem = slugProblem(slug);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

/**
 * A slug proposed from a name (may be empty when the name has no letter or digit). Accents fold to their
 * letter (É -> e) and the cut to the maximum length never leaves a trailing dash, so a non-empty result of
 * two or more characters always passes `slugProblem`.
 */
export function slugify(name: string): string {
  return (
    name
      .toLowerCase()
      .normalize("NFKD")
      // NFKD splits "é" into "e" and a combining accent; the accent goes, so it does not become a dash.
      .replace(/\p{M}+/gu, "")
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, SLUG_MAX)
      .replace(/-+$/, "")
  );
}
