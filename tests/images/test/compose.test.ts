import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

/**
 * docker-compose.yml runs the stack from the images (images.test.ts runs those images for real; no registry is
 * reachable here for PostgreSQL's and Redis's, so compose itself is checked as a file): every app service is built
 * from the Containerfile's targets, nothing of the source tree is mounted, migrations run first.
 */
interface Service {
  build?: { context: string; dockerfile?: string; target?: string };
  image?: string;
  command?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  security_opt?: string[];
  environment?: Record<string, string>;
}
const repoRoot = path.resolve(import.meta.dirname, "../../..");
const compose = parse(readFileSync(path.join(repoRoot, "docker-compose.yml"), "utf8"), { merge: true }) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
const { services } = compose;

describe("docker-compose.yml", () => {
  it("builds the gateway, the migrations job and the worker from the Containerfile's targets", () => {
    expect(services.gateway?.build).toMatchObject({ context: ".", dockerfile: "Containerfile", target: "gateway" });
    expect(services.migrate?.build).toMatchObject({ context: ".", dockerfile: "Containerfile", target: "gateway" });
    expect(services.worker?.build).toMatchObject({ context: ".", dockerfile: "Containerfile", target: "worker" });
    expect(services.migrate?.command).toEqual(["npx", "--no", "prisma", "migrate", "deploy"]);
  });

  it("mounts no host path into any service, only named volumes", () => {
    for (const [name, service] of Object.entries(services)) {
      for (const volume of service.volumes ?? []) {
        const source = volume.split(":")[0]!;
        expect(Object.keys(compose.volumes), `${name} mounts ${source}`).toContain(source);
      }
    }
  });

  it("starts the gateway and the worker after the migrations completed, the worker with /proc unmasked", () => {
    for (const name of ["gateway", "worker"]) {
      expect(services[name]?.depends_on?.migrate).toEqual({ condition: "service_completed_successfully" });
      expect(services[name]?.environment?.DATABASE_URL).toMatch(/@postgres:5432\//);
      expect(services[name]?.environment?.REDIS_URL).toBe("redis://redis:6379");
    }
    expect(services.worker?.security_opt).toContain("unmask=/proc/*");
    expect(services.gateway?.environment?.BRIDGE_URL).toBe(services.worker?.environment?.BRIDGE_PUBLIC_URL);
  });
});
