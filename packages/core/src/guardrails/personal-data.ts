import type { GuardrailCategory } from "./rules";

/** A match in one string: its span and what found it. Never leaves the scan with its text. */
export interface Match {
  category: GuardrailCategory;
  rule: string;
  start: number;
  end: number;
}

/** Luhn's checksum (ISO/IEC 7812): true for a valid card number's digits. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** ISO 13616's mod-97 check of a compact IBAN (letters and digits, no spaces). */
export function ibanValid(compact: string): boolean {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(compact)) return false;
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const code = ch.charCodeAt(0);
    const value = code >= 65 ? String(code - 55) : ch;
    for (const digit of value) remainder = (remainder * 10 + (digit.charCodeAt(0) - 48)) % 97;
  }
  return remainder === 1;
}

/** IBAN length by country (SWIFT's IBAN registry); a code not listed is not taken for an IBAN. */
const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BR: 29, CH: 21, CR: 22, CY: 28, CZ: 24,
  DE: 22, DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18, FO: 18, FR: 27, GB: 22, GE: 22, GI: 23, GL: 18, GR: 27,
  GT: 28, HR: 21, HU: 28, IE: 22, IL: 23, IS: 26, IT: 27, JO: 30, KW: 30, KZ: 20, LB: 28, LI: 21, LT: 20, LU: 20,
  LV: 21, MC: 27, MD: 24, ME: 22, MK: 19, MR: 27, MT: 31, MU: 30, NL: 18, NO: 15, PK: 24, PL: 28, PS: 29, PT: 25,
  QA: 29, RO: 24, RS: 22, SA: 24, SE: 24, SI: 19, SK: 24, SM: 27, TN: 24, TR: 26, UA: 29, VG: 24, XK: 20,
}; // prettier-ignore

const isAlnum = (ch: string | undefined) => ch !== undefined && /[A-Za-z0-9]/.test(ch);

// 13 to 19 digits, single spaces or dashes between them, not inside a longer run of digits.
const CARD = /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d])/g;
// Major networks' leading digits (Visa 4, Mastercard 2/5, Amex and Diners 3, Discover and others 6).
const CARD_PREFIX = /^[2-6]/;

function cards(text: string, out: Match[]): void {
  for (const m of text.matchAll(CARD)) {
    const digits = m[0].replace(/[ -]/g, "");
    // One kind of separator only (4111 1111-1111 1111 is not how anyone writes a card).
    if (/ /.test(m[0]) && /-/.test(m[0])) continue;
    if (!CARD_PREFIX.test(digits) || !luhnValid(digits)) continue;
    out.push({ category: "card", rule: "card-luhn", start: m.index, end: m.index + m[0].length });
  }
}

const IBAN_START = /(?<![A-Za-z0-9])([A-Z]{2})\d{2}/g;

function ibans(text: string, out: Match[]): void {
  for (const m of text.matchAll(IBAN_START)) {
    const length = IBAN_LENGTHS[m[1]!];
    if (length === undefined) continue;
    // Take `length` letters and digits from the start, allowing single spaces between them.
    let compact = "";
    let i = m.index;
    while (i < text.length && compact.length < length) {
      const ch = text[i]!;
      if (isAlnum(ch)) compact += ch.toUpperCase();
      else if (ch === " " && isAlnum(text[i + 1]) && compact.length > 0) {
        // a single space inside the number
      } else break;
      i++;
    }
    if (compact.length !== length || isAlnum(text[i])) continue;
    if (!ibanValid(compact)) continue;
    out.push({ category: "iban", rule: "iban-mod97", start: m.index, end: i });
  }
}

const EMAIL =
  /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}(?![A-Za-z0-9-])/g;

function emails(text: string, out: Match[]): void {
  for (const m of text.matchAll(EMAIL)) {
    out.push({ category: "email", rule: "email", start: m.index, end: m.index + m[0].length });
  }
}

/**
 * Phone numbers as people write them: international (`+44 20 7946 0958`, `+14155550123`), North American
 * (`(415) 555-0123`, `415-555-0123`) and national with a trunk zero and separators (`020 7946 0958`,
 * `030-1234567`). A plain run of digits without `+` is not a phone number (ids, amounts, timestamps).
 */
const PHONES = [
  /(?<![\w+])\+[1-9](?:[ .-]?\(?\d\)?){6,14}(?!\d)/g,
  /(?<![\w(])\(\d{3}\) ?\d{3}[ .-]\d{4}(?!\d)/g,
  /(?<![\w.-])\d{3}([.-])\d{3}\1\d{4}(?![\w-])/g,
  /(?<![\w.-])0\d{1,4}[ -/]\d{3,4}(?:[ -]?\d{2,4}){0,2}(?![\w.-])/g,
];

function phones(text: string, out: Match[]): void {
  for (const pattern of PHONES) {
    for (const m of text.matchAll(pattern)) {
      const digits = m[0].replace(/\D/g, "").length;
      if (digits < 7 || digits > 15) continue;
      out.push({ category: "phone", rule: "phone", start: m.index, end: m.index + m[0].length });
    }
  }
}

const DETECTORS: Record<Exclude<GuardrailCategory, "credentials">, (text: string, out: Match[]) => void> = {
  card: cards,
  iban: ibans,
  email: emails,
  phone: phones,
};

/** The personal data of the given categories found in `text` (overlaps not yet resolved). */
export function findPersonalData(text: string, categories: ReadonlySet<GuardrailCategory>): Match[] {
  const out: Match[] = [];
  // Cheap pre-checks: no digit, no card, IBAN or phone; no "@", no email.
  const digit = /\d/.test(text);
  if (digit && categories.has("card")) DETECTORS.card(text, out);
  if (digit && categories.has("iban")) DETECTORS.iban(text, out);
  if (categories.has("email") && text.includes("@")) DETECTORS.email(text, out);
  if (digit && categories.has("phone")) DETECTORS.phone(text, out);
  return out;
}
