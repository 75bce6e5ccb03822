"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useEffect, useRef } from "react";

/**
 * Page state that belongs in the address (tab, filters, search, page, selected item), so a link or a reload
 * shows the same view. Setting a value to "" or the default removes it from the URL. History is replaced,
 * not pushed: typing in a search box should not fill the Back button.
 */
export function useUrlState<K extends string>(defaults: Record<K, string>) {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const get = (key: K): string => params.get(key) ?? defaults[key];
  // What this hook last wrote, until the router's params catch up: two writes in quick succession (a sort, then
  // a debounced search) must build on each other, not on the address the router has not committed yet.
  const latest = useRef<string | null>(null);
  useEffect(() => {
    latest.current = null;
  }, [params]);
  const set = useCallback(
    (changes: Partial<Record<K, string>>) => {
      const next = new URLSearchParams(latest.current ?? params.toString());
      for (const [key, value] of Object.entries(changes) as Array<[K, string]>) {
        if (value === "" || value === defaults[key]) next.delete(key);
        else next.set(key, value);
      }
      const query = next.toString();
      latest.current = query;
      router.replace(query ? `${pathname}?${query}` : pathname, { scroll: false });
    },
    [params, pathname, router],
  );
  return [get, set] as const;
}
