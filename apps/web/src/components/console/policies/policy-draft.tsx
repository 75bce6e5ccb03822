"use client";

import { createContext, useContext, useState } from "react";

/** The editor's text, shared with the "what would happen" panel (which can decide under the draft). */
const DraftContext = createContext<[string | null, (text: string) => void] | null>(null);

export function PolicyDraftProvider({ children }: { children: React.ReactNode }) {
  const state = useState<string | null>(null);
  return <DraftContext.Provider value={state}>{children}</DraftContext.Provider>;
}

export function usePolicyDraft(): [string | null, (text: string) => void] {
  const shared = useContext(DraftContext);
  const own = useState<string | null>(null);
  return shared ?? own;
}
