import { z } from "zod";

/**
 * Guardrails on what flows through a call: per installation, an action for each category of sensitive data found
 * in tool arguments, tool results and resource contents. Pure data and rules; the scan is scan.ts, the proxy's
 * gate gate.ts.
 */

/** What is looked for: credentials (secretlint's recommended rules) and four kinds of personal data. */
export const GUARDRAIL_CATEGORIES = ["credentials", "card", "iban", "email", "phone"] as const;
export type GuardrailCategory = (typeof GUARDRAIL_CATEGORIES)[number];

/** off: not scanned; flag: recorded only; redact: the match is replaced; block: the call or its result is refused. */
export const GUARDRAIL_ACTIONS = ["off", "flag", "redact", "block"] as const;
export type GuardrailAction = (typeof GUARDRAIL_ACTIONS)[number];

export type GuardrailSettings = Readonly<Record<GuardrailCategory, GuardrailAction>>;

/**
 * What an installation that never set its guardrails gets: credentials are flagged (the call goes on exactly as
 * before; the request log and audit trail say a credential went through, and the request log keeps the
 * arguments redacted), personal data is not scanned. Nothing an existing installation's members see changes.
 */
export const DEFAULT_GUARDRAILS: GuardrailSettings = {
  credentials: "flag",
  card: "off",
  iban: "off",
  email: "off",
  phone: "off",
};

export const GUARDRAIL_CATEGORY_LABELS: Readonly<Record<GuardrailCategory, string>> = {
  credentials: "Credentials (API keys, tokens, private keys)",
  card: "Card numbers",
  iban: "IBANs",
  email: "Email addresses",
  phone: "Phone numbers",
};

export const GUARDRAIL_ACTION_LABELS: Readonly<Record<GuardrailAction, string>> = {
  off: "Off",
  flag: "Flag (audit only)",
  redact: "Redact",
  block: "Block",
};

/** As stored (a JSON column) and as an admin sends it: any subset of categories; the rest take the defaults. */
export const guardrailSettingsSchema = z
  .object(Object.fromEntries(GUARDRAIL_CATEGORIES.map((c) => [c, z.enum(GUARDRAIL_ACTIONS).optional()])))
  .strict() as unknown as z.ZodType<Partial<Record<GuardrailCategory, GuardrailAction>>>;

/** An installation's settings as stored (anything unreadable counts as unset) over the defaults. */
export function resolveGuardrails(stored: unknown): GuardrailSettings {
  const parsed = guardrailSettingsSchema.safeParse(stored ?? {});
  return { ...DEFAULT_GUARDRAILS, ...(parsed.success ? parsed.data : {}) };
}

/** Whether a call needs scanning at all (every category off: the hot path does nothing). */
export function guardrailsActive(settings: GuardrailSettings): boolean {
  return GUARDRAIL_CATEGORIES.some((c) => settings[c] !== "off");
}

/** Where in a call a finding was made. */
export type GuardrailWhere = (typeof GUARDRAIL_WHERE)[number];

/** One kind of match at one place; never the matched value. */
export interface GuardrailFinding {
  category: GuardrailCategory;
  /** The detector: a secretlint rule id (`@secretlint/secretlint-rule-aws`) or ours (`card-luhn`, ...). */
  rule: string;
  where: GuardrailWhere;
  /** JSON path of the string it was found in (`$.content[0].text`, `$.arguments.note`). */
  path: string;
  count: number;
  /** What was done about it (the category's action). */
  action: Exclude<GuardrailAction, "off">;
}

/** JSON-RPC error code of a call whose arguments a guardrail blocked (next to quotas' -32029). */
export const GUARDRAIL_BLOCKED_CODE = -32030;

/** The one sentence a caller reads when a guardrail blocks: which categories, never what matched. */
export function guardrailRefusalMessage(findings: readonly GuardrailFinding[], where: GuardrailWhere): string {
  const nouns = [...new Set(findings.filter((f) => f.action === "block").map((f) => GUARDRAIL_NOUNS[f.category]))];
  const what = nouns.length > 0 ? nouns.join(" and ") : "sensitive data";
  switch (where) {
    case "arguments":
      return `This call was blocked by a guardrail because its arguments contain ${what}.`;
    case "result":
      return `The tool's result was withheld by a guardrail because it contains ${what}.`;
    case "resource":
      return `The resource's contents were withheld by a guardrail because they contain ${what}.`;
  }
}

const GUARDRAIL_NOUNS: Record<GuardrailCategory, string> = {
  credentials: "a credential",
  card: "a card number",
  iban: "an IBAN",
  email: "an email address",
  phone: "a phone number",
};

/** The text a redacted match becomes. */
export function redactionMark(category: GuardrailCategory): string {
  return `[redacted:${category}]`;
}

export const GUARDRAIL_WHERE = ["arguments", "result", "resource"] as const;

/** A finding as stored (the request log's JSON column, the audit trail's detail). */
export const guardrailFindingSchema = z.object({
  category: z.enum(GUARDRAIL_CATEGORIES),
  rule: z.string(),
  where: z.enum(GUARDRAIL_WHERE),
  path: z.string(),
  count: z.number(),
  action: z.enum(["flag", "redact", "block"]),
});

/** The findings of a stored call (anything unreadable is left out). */
export function readGuardrailFindings(stored: unknown): GuardrailFinding[] {
  if (!Array.isArray(stored)) return [];
  return stored.flatMap((f) => {
    const parsed = guardrailFindingSchema.safeParse(f);
    return parsed.success ? [parsed.data] : [];
  });
}

const FINDING_WHERE: Record<GuardrailWhere, string> = {
  arguments: "the arguments",
  result: "the result",
  resource: "the resource's contents",
};
const FINDING_DONE: Record<GuardrailFinding["action"], string> = {
  flag: "flagged",
  redact: "redacted",
  block: "blocked",
};

/** A finding in words, for the request log: "Card numbers in the arguments at $.note (1): redacted". */
export function describeGuardrailFinding(f: GuardrailFinding): string {
  const what = GUARDRAIL_CATEGORY_LABELS[f.category].replace(/ \(.*\)$/, "");
  return `${what} in ${FINDING_WHERE[f.where]} at ${f.path} (${f.count}): ${FINDING_DONE[f.action]}`;
}
