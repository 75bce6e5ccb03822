import type { K8sObject } from "./render";
import { networkPolicyProblems, unknownEnvProblems, wiringProblems } from "./network-checks";
import {
  arr,
  bytes,
  containers,
  envValue,
  matches,
  obj,
  portNumber,
  type Workload,
  workloadOf,
  workloads,
} from "./workloads";

/* What every overlay must keep, whatever it patches: each function returns its problems, one sentence each. */

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
