/**
 * The three views every tool count and token cost in the console is one of, so that one number means one thing
 * on every page (computed by proxy `catalogue-numbers`; this module is import-safe for the browser):
 * - `upstream`: what the server offers, its raw catalogue as discovered;
 * - `installation`: what the installation serves its members after the admins' governance (tools off, held back
 *   for review, renamed, described anew);
 * - `member`: what one member's clients see: the installation's view minus the tools that member hid (and, for a
 *   toolset, only its selection).
 */
export type CatalogueView = "upstream" | "installation" | "member";

/** How each view is labelled wherever its numbers appear. */
export const CATALOGUE_VIEW_LABELS: Readonly<Record<CatalogueView, string>> = {
  upstream: "offered by the server",
  installation: "served by this installation",
  member: "your clients see",
};

export interface CatalogueNumbers {
  toolCount: number;
  tokens: number;
}
