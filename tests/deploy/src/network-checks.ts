import type { K8sObject } from "./render";
import { arr, COMPONENT, containers, type Json, matches, NAME, obj, workloadOf, workloads } from "./workloads";

/* How the workloads reach each other and what reaches them: wiring, variables, NetworkPolicies. */

/** Services select pods that exist, the Ingress reaches the gateway's Service, envFrom names objects that exist. */
export function wiringProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  const all = workloads(objects);
  for (const svc of objects.filter((o) => o.kind === "Service")) {
    const selector = obj(obj(svc.spec).selector) as Record<string, string>;
    if (!all.some((w) => w.object.kind === "Deployment" && matches({ matchLabels: selector }, w.podLabels))) {
      problems.push(`Service/${svc.metadata.name} selects no Deployment's pods`);
    }
  }
  for (const ing of objects.filter((o) => o.kind === "Ingress")) {
    for (const rule of arr(obj(ing.spec).rules)) {
      for (const p of arr(obj(obj(rule).http).paths)) {
        const name = obj(obj(obj(p).backend).service).name;
        if (!objects.some((o) => o.kind === "Service" && o.metadata.name === name)) {
          problems.push(`Ingress/${ing.metadata.name} sends to Service ${String(name)}, which is not rendered`);
        }
      }
    }
  }
  for (const w of all) {
    for (const c of containers(w.pod)) {
      for (const e of arr(c.env).map(obj)) {
        const valueFrom = obj(e.valueFrom);
        const [kind, ref] = valueFrom.secretKeyRef
          ? ["Secret", obj(valueFrom.secretKeyRef)]
          : ["ConfigMap", obj(valueFrom.configMapKeyRef)];
        if (ref.name === undefined || ref.optional === true) continue;
        const target = objects.find((o) => o.kind === kind && o.metadata.name === ref.name);
        if (!target || obj(target.data)[String(ref.key)] === undefined) {
          problems.push(
            `${w.object.metadata.name}: ${String(e.name)} comes from ${kind} ${String(ref.name)} key ${String(ref.key)}, which is not rendered`,
          );
        }
      }
      for (const from of arr(c.envFrom).map(obj)) {
        const [kind, ref] = from.configMapRef ? ["ConfigMap", obj(from.configMapRef)] : ["Secret", obj(from.secretRef)];
        if (!objects.some((o) => o.kind === kind && o.metadata.name === ref.name)) {
          problems.push(`${w.object.metadata.name}: envFrom names ${kind} ${String(ref.name)}, which is not rendered`);
        }
      }
    }
  }
  return problems;
}

/** Variable names the manifests set (ConfigMap, Secret, container env) that no process's env schema reads. */
export function unknownEnvProblems(
  objects: K8sObject[],
  known: { gateway: Set<string>; worker: Set<string> },
  extra: Set<string>,
): string[] {
  const problems: string[] = [];
  const either = new Set([...known.gateway, ...known.worker, ...extra]);
  for (const o of objects.filter((x) => x.kind === "ConfigMap" || x.kind === "Secret")) {
    for (const key of Object.keys(obj(o.data))) {
      if (!either.has(key)) problems.push(`${o.kind}/${o.metadata.name}: ${key} is read by no process`);
    }
  }
  for (const w of workloads(objects)) {
    const names = w.component === "worker" ? known.worker : known.gateway;
    for (const c of containers(w.pod)) {
      for (const e of arr(c.env).map(obj)) {
        const name = String(e.name);
        if (!names.has(name) && !extra.has(name))
          problems.push(
            `${w.object.metadata.name}: ${name} is not in the ${w.component === "worker" ? "worker" : "gateway"}'s env schema`,
          );
      }
    }
  }
  return problems;
}

/** Policies that select `labels` and cover `type` (Ingress or Egress). */
function policiesFor(objects: K8sObject[], labels: Record<string, string>, type: "Ingress" | "Egress"): Json[] {
  return objects
    .filter((o) => o.kind === "NetworkPolicy")
    .map((o) => obj(o.spec))
    .filter((spec) => matches(obj(spec.podSelector), labels) && arr(spec.policyTypes).includes(type));
}

/**
 * NetworkPolicy: every Switchboard pod is under a policy for both directions; the worker's bridge port admits only
 * gateway and worker pods of this deployment (no address block, no other namespace, no rule open to all); no pod
 * has an egress rule open to everything.
 */
export function networkPolicyProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  for (const w of workloads(objects)) {
    for (const type of ["Ingress", "Egress"] as const) {
      if (policiesFor(objects, w.podLabels, type).length === 0) {
        problems.push(`${w.object.metadata.name}: no NetworkPolicy restricts its ${type.toLowerCase()}`);
      }
    }
    for (const spec of policiesFor(objects, w.podLabels, "Egress")) {
      for (const rule of arr(spec.egress).map(obj)) {
        if (arr(rule.to).length === 0 && arr(rule.ports).length === 0)
          problems.push(`${w.object.metadata.name}: an egress rule allows everything`);
      }
    }
  }
  const worker = workloadOf(objects, "worker");
  if (!worker) return [...problems, "no worker Deployment"];
  const bridge = containers(worker.pod)
    .flatMap((c) => arr(c.ports).map(obj))
    .find((p) => p.name === "bridge")?.containerPort;
  if (typeof bridge !== "number") return [...problems, "the worker declares no port named bridge"];
  const switchboardPods = (peer: Json) =>
    peer.ipBlock === undefined &&
    peer.namespaceSelector === undefined &&
    ["gateway", "worker"].includes(String(obj(obj(peer.podSelector).matchLabels)[COMPONENT])) &&
    obj(obj(peer.podSelector).matchLabels)[NAME] === "switchboard";
  let admitted = false;
  for (const spec of policiesFor(objects, worker.podLabels, "Ingress")) {
    for (const rule of arr(spec.ingress).map(obj)) {
      const ports = arr(rule.ports).map(obj);
      const covers = ports.length === 0 || ports.some((p) => p.port === bridge || p.port === "bridge");
      if (!covers) continue;
      const from = arr(rule.from).map(obj);
      if (from.length === 0 || !from.every(switchboardPods)) {
        problems.push(
          `the worker's bridge (port ${bridge}) is open to ${from.length === 0 ? "everyone" : JSON.stringify(from)}`,
        );
      } else admitted = true;
    }
  }
  if (!admitted) problems.push("no NetworkPolicy lets gateway pods reach the worker's bridge");
  return problems;
}
