"use client";

import { useEffect, useState } from "react";

/**
 * The current time, refreshed every second while `active` (a countdown on screen). It is null during the
 * server render and the hydration pass, which therefore render the same markup: a clock read on both sides
 * would differ by the time between them (React's hydration error #418).
 */
export function useNow(active = true): number | null {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [active]);
  return now;
}
