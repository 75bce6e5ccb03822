import { findCredentials } from "./credentials";
import { findPersonalData, type Match } from "./personal-data";
import {
  GUARDRAIL_CATEGORIES,
  redactionMark,
  type GuardrailCategory,
  type GuardrailFinding,
  type GuardrailSettings,
  type GuardrailWhere,
} from "./rules";

type Key = string | number;

/** One string of a call that is scanned, with where it sits. */
interface Leaf {
  keys: Key[];
  text: string;
}

/** What a scan found and what to do with the value. */
export interface GuardrailScan {
  /** Never empty: a scan that finds nothing is undefined. */
  findings: GuardrailFinding[];
  /** A finding's action is block: the call (arguments) or its answer (result, contents) must not go on. */
  blocked: boolean;
  /** The value to pass on: matches of categories set to redact replaced, everything else as it came. */
  value: unknown;
  /** The value for records (request log): every match replaced, whatever its action. */
  recorded: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Every string at any depth of `value` (object keys are names, not data: left alone). */
function strings(value: unknown, keys: Key[], out: Leaf[], depth = 0): void {
  if (depth > 64) return;
  if (typeof value === "string") {
    if (value.length > 0) out.push({ keys, text: value });
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => strings(v, [...keys, i], out, depth + 1));
  } else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) strings(v, [...keys, k], out, depth + 1);
  }
}

/**
 * The strings of a call that carry data, by where: every string of the arguments; of a tool result, its text
 * content, embedded resources' text and structured content; of a resource read, each content's text. Types, URIs,
 * MIME types and binary blobs are structure, not scanned.
 */
export function dataStrings(value: unknown, where: GuardrailWhere): Leaf[] {
  const out: Leaf[] = [];
  if (where === "arguments") {
    strings(value, [], out);
    return out;
  }
  if (!isObject(value)) return out;
  if (where === "result") {
    const content = value.content;
    if (Array.isArray(content))
      content.forEach((item, i) => {
        if (!isObject(item)) return;
        if (item.type === "text" && typeof item.text === "string")
          out.push({ keys: ["content", i, "text"], text: item.text });
        if (item.type === "resource" && isObject(item.resource) && typeof item.resource.text === "string")
          out.push({ keys: ["content", i, "resource", "text"], text: item.resource.text });
      });
    if (value.structuredContent !== undefined) strings(value.structuredContent, ["structuredContent"], out);
    return out;
  }
  const contents = value.contents;
  if (Array.isArray(contents))
    contents.forEach((item, i) => {
      if (isObject(item) && typeof item.text === "string") out.push({ keys: ["contents", i, "text"], text: item.text });
    });
  return out;
}

/** `$.content[0].text`, `$.arguments.note`: where a finding was made, for people reading the log. */
export function jsonPath(keys: readonly Key[]): string {
  return keys.reduce<string>(
    (path, k) =>
      typeof k === "number"
        ? `${path}[${k}]`
        : /^[A-Za-z_$][\w$]*$/.test(k)
          ? `${path}.${k}`
          : `${path}[${JSON.stringify(k)}]`,
    "$",
  );
}

const PRIORITY: Record<GuardrailCategory, number> = Object.fromEntries(
  GUARDRAIL_CATEGORIES.map((c, i) => [c, i]),
) as never;

/** Matches that do not overlap: credentials first, then cards, IBANs, emails, phones; earlier spans first. */
function resolveOverlaps(matches: Match[]): Match[] {
  const sorted = [...matches].sort((a, b) => PRIORITY[a.category] - PRIORITY[b.category] || a.start - b.start);
  const kept: Match[] = [];
  for (const m of sorted) if (!kept.some((k) => m.start < k.end && k.start < m.end)) kept.push(m);
  return kept.sort((a, b) => a.start - b.start);
}

function replaced(text: string, matches: readonly Match[], keep: (m: Match) => boolean): string {
  let out = "";
  let at = 0;
  for (const m of matches) {
    if (keep(m)) continue;
    out += text.slice(at, m.start) + redactionMark(m.category);
    at = m.end;
  }
  return out + text.slice(at);
}

/** A copy of `value` with the strings at the given places replaced; the rest shared, structure unchanged. */
function rewrite(value: unknown, edits: ReadonlyArray<{ keys: Key[]; text: string }>): unknown {
  if (edits.length === 0) return value;
  const root: { v: unknown } = { v: value };
  const copied = new Set<unknown>();
  for (const { keys, text } of edits) {
    let parent: Record<Key, unknown> = root as never;
    let key: Key = "v";
    for (const k of keys) {
      let child = parent[key];
      if (!copied.has(child)) {
        child = Array.isArray(child) ? [...child] : { ...(child as object) };
        copied.add(child);
        parent[key] = child;
      }
      parent = child as Record<Key, unknown>;
      key = k;
    }
    parent[key] = text;
  }
  return root.v;
}

/**
 * Scans the data strings of a call's arguments, result or resource contents for the categories `settings` turn
 * on. Undefined when nothing is found (or everything is off): the caller passes the value on untouched.
 */
export async function scanForGuardrails(
  value: unknown,
  where: GuardrailWhere,
  settings: GuardrailSettings,
): Promise<GuardrailScan | undefined> {
  const categories = new Set(GUARDRAIL_CATEGORIES.filter((c) => settings[c] !== "off"));
  if (categories.size === 0) return undefined;
  const leaves = dataStrings(value, where);
  if (leaves.length === 0) return undefined;
  const credentials = categories.has("credentials") ? await findCredentials(leaves.map((l) => l.text)) : undefined;
  const findings = new Map<string, GuardrailFinding>();
  const edits: Array<{ keys: Key[]; text: string }> = [];
  const recordedEdits: Array<{ keys: Key[]; text: string }> = [];
  leaves.forEach((leaf, i) => {
    const all = findPersonalData(leaf.text, categories);
    if (credentials) all.push(...credentials[i]!);
    if (all.length === 0) return;
    const matches = resolveOverlaps(all);
    const path = jsonPath(leaf.keys);
    for (const m of matches) {
      const action = settings[m.category];
      if (action === "off") continue;
      const id = `${m.category}\n${m.rule}\n${path}`;
      const found = findings.get(id);
      if (found) found.count++;
      else findings.set(id, { category: m.category, rule: m.rule, where, path, count: 1, action });
    }
    if (matches.some((m) => settings[m.category] === "redact"))
      edits.push({ keys: leaf.keys, text: replaced(leaf.text, matches, (m) => settings[m.category] !== "redact") });
    recordedEdits.push({ keys: leaf.keys, text: replaced(leaf.text, matches, () => false) });
  });
  if (findings.size === 0) return undefined;
  const list = [...findings.values()];
  return {
    findings: list,
    blocked: list.some((f) => f.action === "block"),
    value: rewrite(value, edits),
    recorded: rewrite(value, recordedEdits),
  };
}
