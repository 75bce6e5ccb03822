"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useRef, useState } from "react";

/**
 * The console's sidebar (a team's, or the account's on pages outside a team). On a phone it collapses into a bar with a Menu button; a route change closes it. After
 * a client-side route change, focus moves to the new page's heading, so keyboard and screen-reader users start
 * at the content (as a full page load would) instead of on the link they left.
 */
export function TeamNav({ label = "Team navigation", children }: { label?: string; children: React.ReactNode }) {
  const [open, setOpen] = useState(false);
  const pathname = usePathname();
  const first = useRef(true);
  useEffect(() => {
    setOpen(false);
    if (first.current) {
      first.current = false;
      return;
    }
    const heading = document.querySelector<HTMLElement>("main h1");
    const target = heading ?? document.querySelector<HTMLElement>("main");
    if (!target) return;
    if (!target.hasAttribute("tabindex")) target.setAttribute("tabindex", "-1");
    target.focus({ preventScroll: false });
  }, [pathname]);
  return (
    <nav className="sidebar" aria-label={label} data-open={open}>
      <div className="nav-head">
        <Link href="/teams" className="brand">
          <img src="/icon.svg" alt="" width={22} height={22} />
          Switchboard
        </Link>
        <button
          type="button"
          className="nav-toggle small"
          aria-expanded={open}
          aria-controls="team-nav-links"
          onClick={() => setOpen((v) => !v)}
        >
          {open ? "Close" : "Menu"}
        </button>
      </div>
      <div className="nav-links" id="team-nav-links">
        {children}
      </div>
    </nav>
  );
}
