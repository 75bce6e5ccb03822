import type { K8sObject } from "./render";

/* Reading rendered manifests: workloads, their pods and containers, label selectors and quantities. */

export type Json = Record<string, unknown>;
export const obj = (v: unknown): Json => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {});
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export const COMPONENT = "app.kubernetes.io/component";
export const NAME = "app.kubernetes.io/name";

export interface Workload {
  object: K8sObject;
  component: string;
  podLabels: Record<string, string>;
  pod: Json;
}

/** Deployments and Jobs of Switchboard, with their pod templates. */
export function workloads(objects: K8sObject[]): Workload[] {
  return objects
    .filter((o) => (o.kind === "Deployment" || o.kind === "Job") && o.metadata.labels?.[NAME] === "switchboard")
    .map((object) => {
      const template = obj(obj(object.spec).template);
      return {
        object,
        component: object.metadata.labels?.[COMPONENT] ?? "",
        podLabels: obj(obj(template.metadata).labels) as Record<string, string>,
        pod: obj(template.spec),
      };
    });
}

export function matches(selector: Json, labels: Record<string, string>): boolean {
  const wanted = obj(selector.matchLabels) as Record<string, string>;
  if (arr(selector.matchExpressions).length > 0) return false; // none written here; refuse rather than guess
  return Object.entries(wanted).every(([k, v]) => labels[k] === v);
}

export const containers = (pod: Json): Json[] => arr(pod.containers).map(obj);
export const envValue = (container: Json, name: string): string | undefined =>
  arr(container.env)
    .map(obj)
    .find((e) => e.name === name)?.value as string | undefined;

export function portNumber(container: Json, port: unknown): number | undefined {
  if (typeof port === "number") return port;
  const named = arr(container.ports)
    .map(obj)
    .find((p) => p.name === port);
  return typeof named?.containerPort === "number" ? named.containerPort : undefined;
}

export function workloadOf(objects: K8sObject[], component: string): Workload | undefined {
  return workloads(objects).find((w) => w.component === component && w.object.kind === "Deployment");
}

export const UNITS: Record<string, number> = {
  "": 1,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
};
/** Bytes of a Kubernetes quantity (the forms these manifests use); NaN for another form. */
export function bytes(quantity: unknown): number {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(String(quantity));
  return m ? Number(m[1]) * (UNITS[m[2] ?? ""] ?? Number.NaN) : Number.NaN;
}
