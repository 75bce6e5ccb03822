"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useEffect } from "react";
import { UrlWrites } from "./url-writes";

// One for the page: two components' writes (a tab here, a filter there) build on each other too.
const writes = new UrlWrites();

/**
 * Page state that belongs in the address (tab, filters, search, page, selected item), so a link or a reload
 * shows the same view. Setting a value to "" or the default removes it from the URL. History is replaced,
 * not pushed: typing in a search box should not fill the Back button. Writes made in quick succession build on
 * each other (`UrlWrites`), not on the address the router has not committed yet.
 */
export function useUrlState<K extends string>(defaults: Record<K, string>) {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const get = (key: K): string => params.get(key) ?? defaults[key];
  const current = `${pathname}?${params.toString()}`;
  useEffect(() => writes.observe(current), [current]);
  const set = useCallback(
    (changes: Partial<Record<K, string>>) => {
      router.replace(writes.write(current, changes as Record<string, string>, defaults), { scroll: false });
    },
    // `defaults` is a literal at each call site: its values matter, not its identity, and they never change.
    [current, router],
  );
  return [get, set] as const;
}
