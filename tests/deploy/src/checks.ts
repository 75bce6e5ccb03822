import type { K8sObject } from "./render";

/* What every overlay must keep, whatever it patches: each function returns its problems, one sentence each. */

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

const COMPONENT = "app.kubernetes.io/component";
const NAME = "app.kubernetes.io/name";

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

function matches(selector: Json, labels: Record<string, string>): boolean {
  const wanted = obj(selector.matchLabels) as Record<string, string>;
  if (arr(selector.matchExpressions).length > 0) return false; // none written here; refuse rather than guess
  return Object.entries(wanted).every(([k, v]) => labels[k] === v);
}

const containers = (pod: Json): Json[] => arr(pod.containers).map(obj);
const envValue = (container: Json, name: string): string | undefined =>
  arr(container.env)
    .map(obj)
    .find((e) => e.name === name)?.value as string | undefined;

function portNumber(container: Json, port: unknown): number | undefined {
  if (typeof port === "number") return port;
  const named = arr(container.ports)
    .map(obj)
    .find((p) => p.name === port);
  return typeof named?.containerPort === "number" ? named.containerPort : undefined;
}

function workloadOf(objects: K8sObject[], component: string): Workload | undefined {
  return workloads(objects).find((w) => w.component === component && w.object.kind === "Deployment");
}

/** Gateway and worker answer /healthz (liveness, start-up) and /readyz (readiness) on a port they declare. */
export function probeProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  for (const component of ["gateway", "worker"]) {
    const w = workloadOf(objects, component);
    if (!w) {
      problems.push(`no ${component} Deployment`);
      continue;
    }
    for (const c of containers(w.pod)) {
      const where = `${component} container ${String(c.name)}`;
      const ports = new Set<number>();
      for (const [probe, path] of [
        ["readinessProbe", "/readyz"],
        ["livenessProbe", "/healthz"],
        ["startupProbe", "/healthz"],
      ] as const) {
        const get = obj(obj(c[probe]).httpGet);
        if (get.path !== path) {
          problems.push(`${where}: ${probe} must GET ${path} (has ${JSON.stringify(c[probe] ?? null)})`);
          continue;
        }
        const port = portNumber(c, get.port);
        if (port === undefined) problems.push(`${where}: ${probe}'s port ${String(get.port)} is not a container port`);
        else ports.add(port);
      }
      const expected =
        component === "worker"
          ? Number(envValue(c, "WORKER_HEALTH_PORT") ?? 3003)
          : Number(envValue(c, "PORT") ?? 3000);
      for (const port of ports) {
        if (port !== expected)
          problems.push(`${where}: probes use port ${port}, the process answers them on ${expected}`);
      }
    }
  }
  return problems;
}

const UNITS: Record<string, number> = {
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

/**
 * Every container of every workload requests CPU and memory and has a memory limit; the pod's emptyDir volumes
 * fit in its ephemeral-storage limit (or the kubelet evicts the pod before a volume is full).
 */
export function resourceProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  for (const w of workloads(objects)) {
    const emptyDirs = arr(w.pod.volumes)
      .map((v) => obj(obj(v).emptyDir))
      .filter((d) => d.sizeLimit !== undefined)
      .reduce((sum, d) => sum + bytes(d.sizeLimit), 0);
    const ephemeral = containers(w.pod).reduce(
      (sum, c) => sum + bytes(obj(obj(c.resources).limits)["ephemeral-storage"] ?? 0),
      0,
    );
    if (!(emptyDirs <= ephemeral)) {
      problems.push(
        `${w.object.kind}/${w.object.metadata.name}: its emptyDir volumes (${emptyDirs / 2 ** 20} MiB) exceed its ephemeral-storage limit (${ephemeral / 2 ** 20} MiB)`,
      );
    }
    for (const c of [...containers(w.pod), ...arr(w.pod.initContainers).map(obj)]) {
      const resources = obj(c.resources);
      const where = `${w.object.kind}/${w.object.metadata.name} container ${String(c.name)}`;
      if (obj(resources.requests).cpu === undefined) problems.push(`${where}: no CPU request`);
      if (obj(resources.requests).memory === undefined) problems.push(`${where}: no memory request`);
      if (obj(resources.limits).memory === undefined) problems.push(`${where}: no memory limit`);
    }
  }
  return problems;
}

/**
 * Every pod: a non-root user, no privilege, no capability, no privilege escalation, a read-only root, a seccomp
 * profile (RuntimeDefault or Localhost), no host namespaces or host paths, no API token. The worker's pod also has
 * its own user namespace and an unmasked /proc, which bubblewrap needs.
 */
export function securityProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  for (const w of workloads(objects)) {
    const where = `${w.object.kind}/${w.object.metadata.name}`;
    const podSc = obj(w.pod.securityContext);
    if (w.pod.automountServiceAccountToken !== false) problems.push(`${where}: mounts a service account token`);
    for (const host of ["hostNetwork", "hostPID", "hostIPC"]) {
      if (w.pod[host] === true) problems.push(`${where}: ${host}`);
    }
    if (arr(w.pod.volumes).some((v) => obj(v).hostPath !== undefined)) problems.push(`${where}: a hostPath volume`);
    // The console needs every secret; the worker and the migrations name the ones they read.
    if (w.component !== "gateway") {
      for (const c of containers(w.pod)) {
        if (arr(c.envFrom).some((f) => obj(f).secretRef !== undefined))
          problems.push(`${where}: takes every key of a Secret`);
      }
    }
    for (const c of [...containers(w.pod), ...arr(w.pod.initContainers).map(obj)]) {
      const sc = obj(c.securityContext);
      const cw = `${where} container ${String(c.name)}`;
      if ((sc.runAsNonRoot ?? podSc.runAsNonRoot) !== true) problems.push(`${cw}: runAsNonRoot is not true`);
      if ((sc.runAsUser ?? podSc.runAsUser) === 0) problems.push(`${cw}: runs as uid 0`);
      if (sc.privileged === true) problems.push(`${cw}: privileged`);
      if (sc.allowPrivilegeEscalation !== false) problems.push(`${cw}: allowPrivilegeEscalation is not false`);
      if (sc.readOnlyRootFilesystem !== true) problems.push(`${cw}: the root file system is writable`);
      const caps = obj(sc.capabilities);
      if (!arr(caps.drop).includes("ALL")) problems.push(`${cw}: does not drop ALL capabilities`);
      if (arr(caps.add).length > 0) problems.push(`${cw}: adds capabilities ${JSON.stringify(caps.add)}`);
      const seccomp = obj(sc.seccompProfile ?? podSc.seccompProfile);
      if (seccomp.type !== "RuntimeDefault" && seccomp.type !== "Localhost") {
        problems.push(`${cw}: seccomp profile ${String(seccomp.type)} (RuntimeDefault or Localhost required)`);
      }
      if (w.component === "worker") {
        if (sc.procMount !== "Unmasked")
          problems.push(`${cw}: procMount is not Unmasked (bubblewrap cannot mount /proc)`);
      } else if (sc.procMount !== undefined && sc.procMount !== "Default") {
        problems.push(`${cw}: procMount ${String(sc.procMount)} outside the worker`);
      }
    }
    if (w.component === "worker" && w.pod.hostUsers !== false) {
      problems.push(`${where}: hostUsers is not false (the unmasked /proc needs a user namespace of its own)`);
    }
  }
  return problems;
}

/** SHUTDOWN_GRACE_MS as the pod sees it: its own env first, then its ConfigMaps (the processes' default, 25 s). */
function shutdownGraceMs(objects: K8sObject[], w: Workload): number {
  for (const c of containers(w.pod)) {
    const own = envValue(c, "SHUTDOWN_GRACE_MS");
    if (own !== undefined) return Number(own);
    for (const from of arr(c.envFrom).map(obj)) {
      const name = obj(from.configMapRef).name;
      const map = objects.find((o) => o.kind === "ConfigMap" && o.metadata.name === name);
      const value = obj(map?.data).SHUTDOWN_GRACE_MS;
      if (value !== undefined) return Number(value);
    }
  }
  return 25_000;
}

/**
 * Shutdown: terminationGracePeriodSeconds covers the preStop pause, the process's own SHUTDOWN_GRACE_MS and 10 s
 * to stop what is left (stdio servers, leases, connections); an HPA and a PDB on the gateway, a PDB on the worker.
 */
export function availabilityProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  for (const component of ["gateway", "worker"]) {
    const w = workloadOf(objects, component);
    if (!w) continue;
    const grace = w.pod.terminationGracePeriodSeconds;
    const pause = Math.max(
      0,
      ...containers(w.pod).map((c) => Number(obj(obj(obj(c.lifecycle).preStop).sleep).seconds ?? 0)),
    );
    const needed = pause + shutdownGraceMs(objects, w) / 1000 + 10;
    if (typeof grace !== "number") problems.push(`${component}: no terminationGracePeriodSeconds`);
    else if (grace < needed) {
      problems.push(
        `${component}: terminationGracePeriodSeconds ${grace} is under the ${pause} s preStop pause + SHUTDOWN_GRACE_MS + 10 s (${needed} s)`,
      );
    }
    const pdb = objects.find(
      (o) => o.kind === "PodDisruptionBudget" && matches(obj(obj(o.spec).selector), w.podLabels),
    );
    if (!pdb) problems.push(`${component}: no PodDisruptionBudget selects its pods`);
  }
  const gateway = workloadOf(objects, "gateway");
  const hpa = objects.find((o) => o.kind === "HorizontalPodAutoscaler");
  const target = obj(obj(hpa?.spec).scaleTargetRef);
  if (!gateway || target.kind !== "Deployment" || target.name !== gateway.object.metadata.name) {
    problems.push("no HorizontalPodAutoscaler scales the gateway Deployment");
  } else if (Number(obj(hpa?.spec).minReplicas ?? 1) < 2) {
    problems.push("the gateway's HorizontalPodAutoscaler may go below 2 replicas (a drain would stop the route)");
  }
  const job = workloads(objects).find((w) => w.object.kind === "Job" && w.component === "migrate");
  const migrate = job ? containers(job.pod)[0] : undefined;
  if (!migrate) problems.push("no migrations Job");
  else {
    const command = arr(migrate.command).join(" ");
    if (!/(^|\/)switchboard-gateway(:|@|$)/.test(String(migrate.image)))
      problems.push(`migrations Job: image ${String(migrate.image)} is not switchboard-gateway`);
    if (!/prisma migrate deploy|db:migrate/.test(command))
      problems.push(`migrations Job: command "${command}" does not apply migrations`);
  }
  return problems;
}

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

export function allProblems(
  objects: K8sObject[],
  known: { gateway: Set<string>; worker: Set<string> },
  extra: Set<string>,
): string[] {
  return [
    ...probeProblems(objects),
    ...resourceProblems(objects),
    ...securityProblems(objects),
    ...availabilityProblems(objects),
    ...wiringProblems(objects),
    ...unknownEnvProblems(objects, known, extra),
    ...networkPolicyProblems(objects),
  ];
}
