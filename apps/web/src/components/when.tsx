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
 * "just now", "5 min ago", "3 h ago" for a last use; "never" without one. A day or more back it is `older(date)`,
 * by default the date and time.
 */
export function formatAgo(date: Date | null, older: (date: Date) => string = (d) => formatWhen(d)): string {
  if (!date) return "never";
  const s = Math.round((Date.now() - date.getTime()) / 1000);
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return older(date);
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
