/**
 * Reads a `/metrics` endpoint as Prometheus would (its text exposition format), for tests that check counters
 * moved by the right amounts.
 */
export interface Scrape {
  /** Sum of the samples of `name` whose labels include `labels` (0 when none: a counter not yet touched). */
  value(name: string, labels?: Record<string, string>): number;
  /** Every sample of `name`, with its labels. */
  samples(name: string): Array<{ labels: Record<string, string>; value: number }>;
  text: string;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): Scrape {
  const all: Array<{ name: string; labels: Record<string, string>; value: number }> = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const m = LINE.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(LABEL)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, "$1");
    all.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  const samples = (name: string) => all.filter((s) => s.name === name);
  return {
    text,
    samples,
    value: (name, labels = {}) =>
      samples(name)
        .filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))
        .reduce((sum, s) => sum + s.value, 0),
  };
}

/** GETs `url` (with the bearer token when given) and parses it; throws on a status other than 200. */
export async function scrapeMetrics(url: string, token?: string): Promise<Scrape> {
  const res = await fetch(url, token ? { headers: { authorization: `Bearer ${token}` } } : undefined);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${text.slice(0, 200)}`);
  return parseMetrics(text);
}
