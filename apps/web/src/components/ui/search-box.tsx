"use client";

import { useEffect, useRef, useState } from "react";
import { useUrlState } from "./use-url-state";

/**
 * A list's search, kept in the URL as `?q=` so a link opens the same filtered list. The box keeps its own text
 * while someone types and the URL follows a moment later; the box takes the URL's text only when something else
 * wrote it (Back, a link), so keystrokes typed while our own write lands are kept. Returns the box's props and
 * the committed search (what the list query uses).
 */
export function useUrlSearch() {
  const [get, set] = useUrlState({ q: "" });
  const urlQ = get("q");
  const [text, setText] = useState(urlQ);
  const written = useRef(urlQ);
  useEffect(() => {
    if (urlQ === written.current) return;
    written.current = urlQ;
    setText(urlQ);
  }, [urlQ]);
  useEffect(() => {
    if (text === urlQ) return;
    const timer = setTimeout(() => {
      written.current = text;
      set({ q: text });
    }, 250);
    return () => clearTimeout(timer);
  }, [text, urlQ, set]);
  return { text, setText, search: urlQ.trim() };
}

/** The search box itself: a labelled `type="search"` input. */
export function SearchBox({
  label,
  placeholder,
  text,
  setText,
}: {
  /** Its accessible name: "Search members". */
  label: string;
  placeholder: string;
  text: string;
  setText: (text: string) => void;
}) {
  return (
    <label className="inline-label search-box">
      <span>Search</span>
      <input
        type="search"
        value={text}
        onChange={(e) => setText(e.target.value)}
        placeholder={placeholder}
        aria-label={label}
      />
    </label>
  );
}
