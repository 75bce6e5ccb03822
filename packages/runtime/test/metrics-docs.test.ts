import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gatewayMetrics, workerMetrics } from "../src/metrics";

/**
 * docs/metrics.md, the Grafana dashboard and the alert rules against the metrics the code defines: the page lists
 * every metric and nothing else, and the dashboard and rules query only metrics that exist.
 */

const ROOT = path.resolve(import.meta.dirname, "../../..");
const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");

const defined = new Set(
  [gatewayMetrics({ processMetrics: false }), workerMetrics({ processMetrics: false })].flatMap((m) =>
    m.registry.getMetricsAsArray().map((metric) => metric.name),
  ),
);
/** A histogram's series are its name with _bucket, _count and _sum. */
const base = (name: string) => name.replace(/_(bucket|count|sum)$/, "");
const namesIn = (text: string) => new Set([...text.matchAll(/\bswitchboard_[a-z_]+/g)].map((m) => base(m[0])));

describe("metrics documentation", () => {
  it("lists every defined metric in docs/metrics.md's tables, and no other", () => {
    const rows = [...read("docs/metrics.md").matchAll(/^\| `(switchboard_[a-z_]+)` \|/gm)].map((m) => m[1]!);
    expect(new Set(rows)).toEqual(defined);
    expect(rows).toHaveLength(defined.size);
  });

  it("queries only defined metrics in the Grafana dashboard and the alert rules", () => {
    for (const file of ["deploy/grafana/switchboard.json", "deploy/prometheus/alerts.yml"]) {
      const used = namesIn(read(file));
      expect(used.size, file).toBeGreaterThan(0);
      for (const name of used) expect(defined, `${file} uses ${name}`).toContain(name);
    }
  });

  it("puts every defined metric on the dashboard", () => {
    expect(namesIn(read("deploy/grafana/switchboard.json"))).toEqual(defined);
  });
});
