import { pathToFileURL } from "node:url";

import { beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";

import { allProblems, availabilityProblems, probeProblems, resourceProblems, securityProblems } from "../src/checks";
import { networkPolicyProblems, wiringProblems } from "../src/network-checks";
import { workloads } from "../src/workloads";
import {
  assertKustomizeVersion,
  componentNames,
  KUBERNETES_DIR,
  type K8sObject,
  overlayNames,
  render,
} from "../src/render";
import { schemaProblems } from "../src/validate";

/**
 * Every overlay under deploy/kubernetes/overlays, rendered with `kubectl kustomize` as an operator would, must be
 * valid against the Kubernetes API's schemas and keep what the deployment relies on: probes, resources, security
 * contexts, disruption budgets, the migrations Job and NetworkPolicies that keep the worker's bridge private.
 */

const ROOT = new URL("../../../", import.meta.url);
/** Not in an env schema but set on purpose: the pod IP the worker's BRIDGE_PUBLIC_URL is built from and the
 * migrations Job's HOME. */
const EXTRA = new Set(["POD_IP", "HOME"]);

let known: { gateway: Set<string>; worker: Set<string> };
beforeAll(async () => {
  assertKustomizeVersion();
  const keys = async (file: string) => {
    const mod = (await import(pathToFileURL(new URL(file, ROOT).pathname).href)) as { envSchema: z.ZodObject };
    return new Set(Object.keys(mod.envSchema.shape));
  };
  // The gateway (and the console it runs) reads the runtime's schema and packages/db's; the worker its own.
  const db = await keys("packages/db/src/env.ts");
  known = {
    gateway: new Set([...(await keys("packages/runtime/src/env.ts")), ...db]),
    worker: new Set([...(await keys("apps/worker/src/env.ts")), ...db]),
  };
});

async function allSchemaProblems(objects: K8sObject[]): Promise<string[]> {
  return (await Promise.all(objects.map(schemaProblems))).flat();
}

const clone = (objects: K8sObject[]) => structuredClone(objects);
function podOf(objects: K8sObject[], component: string) {
  const w = workloads(objects).find((x) => x.component === component && x.object.kind === "Deployment");
  if (!w) throw new Error(`no ${component}`);
  return w.pod as { containers: Record<string, unknown>[]; [k: string]: unknown };
}

describe.each(overlayNames())("overlay %s", (overlay) => {
  let objects: K8sObject[];
  beforeAll(() => {
    objects = render(`overlays/${overlay}`);
  });

  it("renders objects that the Kubernetes API's schemas accept", async () => {
    expect(objects.length).toBeGreaterThan(10);
    expect(await allSchemaProblems(objects)).toEqual([]);
  });

  it("keeps probes, resources, security contexts, budgets, the migrations Job and the NetworkPolicies", () => {
    expect(allProblems(objects, known, EXTRA)).toEqual([]);
  });

  it("puts every object in one namespace whose Pod Security level the pods meet", () => {
    const namespaces = new Set(objects.filter((o) => o.kind !== "Namespace").map((o) => o.metadata.namespace));
    expect([...namespaces]).toHaveLength(1);
    const ns = objects.find((o) => o.kind === "Namespace");
    expect(ns?.metadata.name).toBe([...namespaces][0]);
    expect(ns?.metadata.labels?.["pod-security.kubernetes.io/enforce"]).toBe("restricted");
  });
});

describe("components", () => {
  const kustomization = (components: string[]) =>
    [
      "apiVersion: kustomize.config.k8s.io/v1beta1",
      "kind: Kustomization",
      "namespace: switchboard",
      "resources: [../../base]",
      `components: [${components.map((c) => `../../components/${c}`).join(", ")}]`,
      "secretGenerator: [{ name: switchboard-secrets, envs: [secrets.env] }]",
      "",
    ].join("\n");

  it("each renders onto the base into objects the API's schemas accept", async () => {
    for (const component of componentNames()) {
      const objects = render("check/one", { dir: "check/one", kustomization: kustomization([component]) });
      expect(await allSchemaProblems(objects), component).toEqual([]);
    }
  });

  it("private-egress opens private ranges in the processes' rules and the NetworkPolicy together", () => {
    const objects = render("check/one", { dir: "check/one", kustomization: kustomization(["private-egress"]) });
    const config = objects.find((o) => o.kind === "ConfigMap");
    expect((config as { data?: Record<string, string> }).data?.EGRESS_ALLOW_PRIVATE).toBe("true");
    const worker = objects.find((o) => o.kind === "NetworkPolicy" && o.metadata.name === "switchboard-worker");
    expect(JSON.stringify(worker)).toContain('"cidr":"10.0.0.0/8"');
  });

  it("unconfined-profiles lowers the namespace to Privileged, the level its worker needs", () => {
    const objects = render("check/one", { dir: "check/one", kustomization: kustomization(["unconfined-profiles"]) });
    const ns = objects.find((o) => o.kind === "Namespace");
    expect(ns?.metadata.labels?.["pod-security.kubernetes.io/enforce"]).toBe("privileged");
    expect(securityProblems(objects).join("\n")).toContain("seccomp profile Unconfined");
  });
});

describe("the checks fail on what they guard", () => {
  let small: K8sObject[];
  beforeAll(() => {
    small = render("overlays/small");
  });

  it("reports an overlay that patches the gateway's readiness probe away", () => {
    const objects = render("check/no-probe", {
      dir: "check/no-probe",
      kustomization: [
        "apiVersion: kustomize.config.k8s.io/v1beta1",
        "kind: Kustomization",
        "resources: [../../overlays/small]",
        "patches:",
        "  - target: { kind: Deployment, name: switchboard-gateway }",
        '    patch: \'[{"op": "remove", "path": "/spec/template/spec/containers/0/readinessProbe"}]\'',
        "",
      ].join("\n"),
    });
    expect(allProblems(objects, known, EXTRA)).toEqual([
      expect.stringMatching(/^gateway container gateway: readinessProbe must GET \/readyz/),
    ]);
  });

  it("reports a probe on a port the process does not answer on", () => {
    const objects = clone(small);
    const c = podOf(objects, "worker").containers[0] as { livenessProbe: { httpGet: { port: unknown } } };
    c.livenessProbe.httpGet.port = "bridge";
    expect(probeProblems(objects)).toEqual([
      expect.stringContaining("probes use port 7410, the process answers them on 3003"),
    ]);
  });

  it("reports a grace period shorter than the preStop pause and the processes' shutdown grace", () => {
    const objects = clone(small);
    podOf(objects, "worker").terminationGracePeriodSeconds = 30;
    expect(availabilityProblems(objects)).toEqual([
      "worker: terminationGracePeriodSeconds 30 is under the 5 s preStop pause + SHUTDOWN_GRACE_MS + 10 s (40 s)",
    ]);
  });

  it("reports emptyDir volumes larger than the pod's ephemeral storage, and a secret key that is not there", () => {
    const objects = clone(small);
    const gateway = podOf(objects, "gateway") as unknown as { volumes: { emptyDir: { sizeLimit: string } }[] };
    gateway.volumes[0]!.emptyDir.sizeLimit = "4Gi";
    expect(resourceProblems(objects)).toEqual([
      "Deployment/switchboard-gateway: its emptyDir volumes (4608 MiB) exceed its ephemeral-storage limit (2048 MiB)",
    ]);
    const worker = podOf(objects, "worker").containers[0] as {
      env: { valueFrom?: { secretKeyRef?: { key: string } } }[];
    };
    worker.env.find((e) => e.valueFrom?.secretKeyRef?.key === "BRIDGE_SECRET")!.valueFrom!.secretKeyRef!.key =
      "BRIDGE_SECRT";
    expect(wiringProblems(objects)).toEqual([
      expect.stringMatching(
        /^switchboard-worker: BRIDGE_SECRET comes from Secret switchboard-secrets-\w+ key BRIDGE_SECRT, which is not rendered$/,
      ),
    ]);
  });

  it("reports a container without a memory limit", () => {
    const objects = clone(small);
    delete (podOf(objects, "worker").containers[0] as { resources: { limits: { memory?: string } } }).resources.limits
      .memory;
    expect(resourceProblems(objects)).toEqual([expect.stringContaining("no memory limit")]);
  });

  it("reports a worker without its own user namespace or unmasked /proc, and a gateway that may escalate", () => {
    const objects = clone(small);
    delete podOf(objects, "worker").hostUsers;
    delete (podOf(objects, "worker").containers[0] as { securityContext: { procMount?: string } }).securityContext
      .procMount;
    (
      podOf(objects, "gateway").containers[0] as { securityContext: { allowPrivilegeEscalation: boolean } }
    ).securityContext.allowPrivilegeEscalation = true;
    expect(securityProblems(objects)).toHaveLength(3);
  });

  it("reports a bridge opened to every pod, and a worker no policy covers", () => {
    const open = clone(small);
    const policy = open.find(
      (o) => o.metadata.name === "switchboard-worker" && o.kind === "NetworkPolicy",
    ) as unknown as {
      spec: { ingress: { from?: unknown }[] };
    };
    delete policy.spec.ingress[0]?.from;
    expect(networkPolicyProblems(open)).toEqual([
      "the worker's bridge (port 7410) is open to everyone",
      "no NetworkPolicy lets gateway pods reach the worker's bridge",
    ]);
    const none = small.filter((o) => o.kind !== "NetworkPolicy");
    expect(networkPolicyProblems(none)).toContain("switchboard-worker: no NetworkPolicy restricts its ingress");
  });

  it("reports what the API's schemas refuse", async () => {
    const objects = clone(small);
    const gateway = objects.find((o) => o.kind === "HorizontalPodAutoscaler") as unknown as {
      spec: { minReplicas: unknown };
    };
    gateway.spec.minReplicas = "two";
    const worker = objects.find(
      (o) => o.kind === "Deployment" && o.metadata.name === "switchboard-worker",
    ) as K8sObject;
    (
      worker.spec as { template: { spec: { containers: { resources: { limits: { memory: string } } }[] } } }
    ).template.spec.containers[0]!.resources.limits.memory = "lots";
    const problems = await allSchemaProblems(objects);
    expect(problems).toHaveLength(2);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining("HorizontalPodAutoscaler/switchboard-gateway: data/spec/minReplicas must be integer"),
        expect.stringContaining(
          "Deployment/switchboard-worker: data/spec/template/spec/containers/0/resources/limits/memory must be number",
        ),
      ]),
    );
  });

  it("knows where the manifests are", () => {
    expect(KUBERNETES_DIR).toMatch(/deploy\/kubernetes\/$/);
  });
});
