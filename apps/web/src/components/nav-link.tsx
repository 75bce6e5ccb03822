"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

/** A sidebar link that marks itself as the current page (styled and announced through aria-current). */
export function NavLink({ href, exact, children }: { href: string; exact?: boolean; children: React.ReactNode }) {
  const pathname = usePathname();
  const current = exact ? pathname === href : pathname === href || pathname.startsWith(`${href}/`);
  return (
    <Link href={href} aria-current={current ? "page" : undefined}>
      {children}
    </Link>
  );
}
