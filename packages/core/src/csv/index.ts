/**
 * CSV as RFC 4180 writes it: fields separated by commas, records by CRLF; a field holding a comma, a quote, CR or
 * LF is quoted, its quotes doubled. A text field that a spreadsheet would run as a formula (starting with `=`,
 * `+`, `-`, `@`, tab or CR) is prefixed with `'` (OWASP's CSV injection advice); numbers are written as they are.
 */
export type CsvValue = string | number | boolean | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvField(value: CsvValue): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export interface CsvColumn<T> {
  header: string;
  value: (row: T) => CsvValue;
}

/** One record's line, ending in CRLF (the header line: `csvLine(columns.map((c) => c.header))`). */
export function csvLine(values: readonly CsvValue[]): string {
  return `${values.map(csvField).join(",")}\r\n`;
}

/** A header line and one line per record, each ending in CRLF. */
export function toCsv<T>(columns: ReadonlyArray<CsvColumn<T>>, rows: Iterable<T>) {
  let text = csvLine(columns.map((c) => c.header));
  for (const row of rows) text += csvLine(columns.map((c) => c.value(row)));
  return text;
}
