import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";

export const KUBERNETES_DIR = fileURLToPath(new URL("../../../deploy/kubernetes/", import.meta.url));

/** A rendered Kubernetes object, as kubectl prints it. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

export function overlayNames(): string[] {
  return readdirSync(path.join(KUBERNETES_DIR, "overlays"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

export function componentNames(): string[] {
  return readdirSync(path.join(KUBERNETES_DIR, "components"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/**
 * The manifests use kustomize components, `labels` and `patches` (kustomize 4+; kubectl 1.27+ embeds kustomize 5).
 * An older kubectl (Debian bookworm's kubernetes-client is 1.20, with kustomize 2) fails with a sentence saying so.
 */
export function assertKustomizeVersion(): string {
  const out = execFileSync("kubectl", ["version", "--client", "-o", "json"], { encoding: "utf8" });
  const version = (JSON.parse(out) as { kustomizeVersion?: string }).kustomizeVersion ?? "unknown";
  const major = Number(/^v?(\d+)/.exec(version)?.[1] ?? 0);
  if (major < 5)
    throw new Error(`kubectl's kustomize is ${version}; these manifests need kustomize 5 (kubectl 1.27 or later)`);
  return version;
}

/**
 * Renders `relativeDir` (an overlay, or a kustomization written by `extra`) with `kubectl kustomize`, as an operator
 * would: in a copy of deploy/kubernetes where every overlay's secrets.env is its secrets.env.example.
 */
export function render(relativeDir: string, extra?: { dir: string; kustomization: string }): K8sObject[] {
  const copy = mkdtempSync(path.join(tmpdir(), "switchboard-k8s-"));
  try {
    cpSync(KUBERNETES_DIR, copy, { recursive: true });
    for (const overlay of overlayNames()) {
      const example = path.join(copy, "overlays", overlay, "secrets.env.example");
      if (existsSync(example)) cpSync(example, path.join(copy, "overlays", overlay, "secrets.env"));
    }
    if (extra) {
      const dir = path.join(copy, extra.dir);
      mkdirSync(dir, { recursive: true });
      cpSync(
        path.join(copy, "overlays", overlayNames()[0] ?? "", "secrets.env.example"),
        path.join(dir, "secrets.env"),
      );
      writeFileSync(path.join(dir, "kustomization.yaml"), extra.kustomization);
    }
    const out = execFileSync("kubectl", ["kustomize", path.join(copy, relativeDir)], {
      encoding: "utf8",
      maxBuffer: 16 * 1024 * 1024,
    });
    return parseAllDocuments(out)
      .map((doc) => {
        if (doc.errors.length > 0)
          throw new Error(`kubectl printed YAML that does not parse: ${doc.errors[0]?.message}`);
        return doc.toJS() as K8sObject | null;
      })
      .filter((o): o is K8sObject => o !== null);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}
