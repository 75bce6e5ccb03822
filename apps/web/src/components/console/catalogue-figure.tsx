import { CATALOGUE_VIEW_LABELS, type CatalogueNumbers, type CatalogueView } from "@switchboard/core/catalogue";

const plural = (n: number, one: string) => `${n.toLocaleString()} ${one}${n === 1 ? "" : "s"}`;

/**
 * A tool count and its token cost, labelled with the catalogue view it belongs to (what the server offers, what
 * the installation serves, what the member's clients see): the one way every page writes these numbers.
 * `data-tools` and `data-tokens` carry the plain numbers.
 */
export function CatalogueFigure({
  numbers,
  view,
  testId,
  strong = false,
  label = CATALOGUE_VIEW_LABELS[view],
}: {
  numbers: CatalogueNumbers | undefined;
  view: CatalogueView;
  testId?: string;
  strong?: boolean;
  label?: string;
}) {
  const n = numbers ?? { toolCount: 0, tokens: 0 };
  const figure = `${plural(n.toolCount, "tool")} · ${plural(n.tokens, "token")}`;
  return (
    <span data-testid={testId} data-view={view} data-tools={n.toolCount} data-tokens={n.tokens}>
      {strong ? <strong>{figure}</strong> : figure} <span className="muted">{label}</span>
    </span>
  );
}
