import type { Db } from "@switchboard/db/client";

/**
 * The catalogue as the database holds it: one key per tool, resource, resource template and prompt of every
 * instance. A drill takes one before its fault and one after; what the first has and the second lacks was lost.
 */
export async function catalogueSnapshot(db: Db): Promise<Set<string>> {
  const [tools, resources, templates, prompts] = await Promise.all([
    db.instanceTool.findMany({ select: { instanceId: true, name: true } }),
    db.instanceResource.findMany({ select: { instanceId: true, uri: true } }),
    db.instanceResourceTemplate.findMany({ select: { instanceId: true, uriTemplate: true } }),
    db.instancePrompt.findMany({ select: { instanceId: true, name: true } }),
  ]);
  return new Set([
    ...tools.map((t) => `tool ${t.instanceId} ${t.name}`),
    ...resources.map((r) => `resource ${r.instanceId} ${r.uri}`),
    ...templates.map((r) => `template ${r.instanceId} ${r.uriTemplate}`),
    ...prompts.map((p) => `prompt ${p.instanceId} ${p.name}`),
  ]);
}

/** Entries of `before` that `after` no longer has. */
export function lostEntries(before: ReadonlySet<string>, after: ReadonlySet<string>): string[] {
  return [...before].filter((key) => !after.has(key));
}
