"use client";

import { useState } from "react";

/**
 * Which fields the person has left, so a form shows a field's error only once it was visited (or a submit was
 * tried), never on a fresh form. Leaving for a button does not count: the message would appear under the
 * pointer and push the button away from the click (a submit shows every error anyway).
 */
export function useVisited() {
  const [visited, setVisited] = useState<ReadonlySet<string>>(new Set());
  const leave = (key: string) => (e: React.FocusEvent) => {
    if (e.relatedTarget instanceof HTMLButtonElement) return;
    setVisited((s) => (s.has(key) ? s : new Set(s).add(key)));
  };
  return { visited, leave };
}
