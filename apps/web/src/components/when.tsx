"use client";

const sameYear = new Intl.DateTimeFormat(undefined, {
  month: "short",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
});
const otherYear = new Intl.DateTimeFormat(undefined, {
  year: "numeric",
  month: "short",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
});
const dayOnly = new Intl.DateTimeFormat(undefined, { year: "numeric", month: "short", day: "numeric" });

/** "25 Nov, 14:05:03": a time always with its date (the year too when it is not this year). */
export function formatWhen(date: Date, { withTime = true }: { withTime?: boolean } = {}): string {
  if (!withTime) return dayOnly.format(date);
  return (date.getFullYear() === new Date().getFullYear() ? sameYear : otherYear).format(date);
}

/**
 * A timestamp in the reader's locale and time zone, machine-readable in `dateTime`. The server renders it in its
 * own zone; the browser's text may differ by zone, which is the one case React lets an element declare.
 */
export function When({ date, withTime = true, className }: { date: Date; withTime?: boolean; className?: string }) {
  return (
    <time className={className} dateTime={date.toISOString()} title={date.toString()} suppressHydrationWarning>
      {formatWhen(date, { withTime })}
    </time>
  );
}
