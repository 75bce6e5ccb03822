import type { TemplateSubmit } from "../catalogue/template-form";
import type { RouterOutputs } from "~/trpc/types";

export type CatalogueItem = RouterOutputs["catalogue"]["list"]["items"][number];

/**
 * The server the wizard installs: a catalogue template (`id`), or a definition made in the wizard (`defined`),
 * which is written to the catalogue only together with the installation, on the last step.
 */
export interface WizardServer {
  id: string | null;
  defined: TemplateSubmit | null;
  name: string;
  slug: string;
  description: string;
  transport: CatalogueItem["transport"];
  command: string | null;
  args: string[];
  url: string | null;
  oauth: boolean;
  fields: {
    key: string;
    label: string;
    tier: "team" | "user";
    required: boolean;
    secret: boolean;
    defaultValue: string | null;
    description: string;
  }[];
}

export function fromCatalogue(t: CatalogueItem): WizardServer {
  return { ...t, defined: null };
}

export function fromDefinition(t: TemplateSubmit): WizardServer {
  return {
    id: null,
    defined: t,
    name: t.name,
    slug: t.slug,
    description: t.description,
    transport: t.transport,
    command: t.command ?? null,
    args: t.args,
    url: t.url ?? null,
    oauth: t.oauth,
    fields: t.fields.map((f) => ({ ...f, label: f.label || f.key, defaultValue: f.defaultValue ?? null })),
  };
}
