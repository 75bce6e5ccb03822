"use client";

import { useEffect, useId, useRef } from "react";

export interface TabItem<T extends string> {
  id: T;
  label: React.ReactNode;
}

/**
 * WAI-ARIA tabs with a roving tabindex: Tab reaches the selected tab only, the arrow keys (and Home / End) move
 * between tabs and select them. The panel is the caller's: give it `tabPanelProps(...)`. On a narrow screen the
 * bar stays one row and scrolls sideways (console.css `.tabs`); the selected tab is scrolled into view, so the
 * keyboard always lands on a visible tab.
 */
export function Tabs<T extends string>({
  label,
  tabs,
  value,
  onChange,
  idBase,
}: {
  label: string;
  tabs: ReadonlyArray<TabItem<T>>;
  value: T;
  onChange: (id: T) => void;
  idBase?: string;
}) {
  const generated = useId();
  const base = idBase ?? generated;
  const refs = useRef(new Map<T, HTMLButtonElement>());
  const bar = useRef<HTMLDivElement>(null);
  // Sideways only (scrollIntoView could scroll the page too); `.tabs` is the tabs' offset parent.
  useEffect(() => {
    const list = bar.current;
    const tab = refs.current.get(value);
    if (!list || !tab) return;
    if (tab.offsetLeft < list.scrollLeft) list.scrollLeft = tab.offsetLeft;
    else if (tab.offsetLeft + tab.offsetWidth > list.scrollLeft + list.clientWidth)
      list.scrollLeft = tab.offsetLeft + tab.offsetWidth - list.clientWidth;
  }, [value]);
  const move = (from: number, delta: number | "first" | "last") => {
    const i = delta === "first" ? 0 : delta === "last" ? tabs.length - 1 : (from + delta + tabs.length) % tabs.length;
    const next = tabs[i]!;
    onChange(next.id);
    refs.current.get(next.id)?.focus();
  };
  return (
    <div className="tabs" role="tablist" aria-label={label} ref={bar}>
      {tabs.map((t, i) => (
        <button
          key={t.id}
          ref={(el) => {
            if (el) refs.current.set(t.id, el);
            else refs.current.delete(t.id);
          }}
          type="button"
          role="tab"
          id={`${base}-tab-${t.id}`}
          aria-selected={value === t.id}
          aria-controls={`${base}-panel-${t.id}`}
          tabIndex={value === t.id ? 0 : -1}
          onClick={() => onChange(t.id)}
          onKeyDown={(e) => {
            const delta =
              e.key === "ArrowRight"
                ? 1
                : e.key === "ArrowLeft"
                  ? -1
                  : e.key === "Home"
                    ? "first"
                    : e.key === "End"
                      ? "last"
                      : null;
            if (delta === null) return;
            e.preventDefault();
            move(i, delta);
          }}
        >
          {t.label}
        </button>
      ))}
    </div>
  );
}

export function tabPanelProps(base: string, id: string) {
  return { role: "tabpanel", id: `${base}-panel-${id}`, "aria-labelledby": `${base}-tab-${id}`, tabIndex: 0 } as const;
}
