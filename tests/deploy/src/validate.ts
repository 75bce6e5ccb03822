import type { K8sObject } from "./render";

interface Model {
  apiVersion: string;
  kind: string;
  new (data: unknown): { validate(): void };
}

/**
 * Validates an object against the Kubernetes API's OpenAPI schema for its apiVersion and kind, with the
 * `kubernetes-models` package (generated from the API's published OpenAPI document; types, required fields, enums,
 * quantities and int-or-string formats). Returns the problems, empty when the object is valid. An apiVersion or kind
 * the API does not have is a problem too. Not checked, as by the OpenAPI document itself: unknown field names.
 */
export async function schemaProblems(object: K8sObject): Promise<string[]> {
  const where = `${object.kind}/${object.metadata?.name ?? "?"}`;
  let group: Record<string, unknown>;
  try {
    group = (await import(`kubernetes-models/${object.apiVersion}`)) as Record<string, unknown>;
  } catch {
    return [`${where}: no Kubernetes API serves apiVersion ${object.apiVersion}`];
  }
  const model = group[object.kind] as Model | undefined;
  if (typeof model !== "function" || model.kind !== object.kind || model.apiVersion !== object.apiVersion) {
    return [`${where}: ${object.apiVersion} has no kind ${object.kind}`];
  }
  try {
    new model(asTheApiReadsIt(object)).validate();
    return [];
  } catch (error) {
    return [`${where}: ${error instanceof Error ? error.message : String(error)}`];
  }
}

/**
 * kubectl folds a Secret's long base64 values over several lines; the API server's base64 decoder (Go's) ignores
 * line breaks, the schema's `byte` format does not. Joined here as the API server reads them.
 */
function asTheApiReadsIt(object: K8sObject): K8sObject {
  if (object.kind !== "Secret" || !object.data || typeof object.data !== "object") return object;
  const data = Object.fromEntries(
    Object.entries(object.data as Record<string, unknown>).map(([k, v]) => [
      k,
      typeof v === "string" ? v.replace(/[\r\n]/g, "") : v,
    ]),
  );
  return { ...object, data };
}
