"use client";

import { createContext, useCallback, useContext, useEffect, useRef, useState } from "react";

interface Toast {
  id: number;
  text: string;
  tone: "ok" | "danger";
}

const ToastContext = createContext<(text: string, tone?: Toast["tone"]) => void>(() => undefined);

/**
 * Short confirmations of completed actions ("Asked 7 instances to reconnect."), announced politely to screen
 * readers from one live region that is always in the page, and gone after a few seconds (or on Dismiss).
 */
export function ToastProvider({ children }: { children: React.ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const next = useRef(0);
  const show = useCallback((text: string, tone: Toast["tone"] = "ok") => {
    const id = ++next.current;
    setToasts((t) => [...t.slice(-3), { id, text, tone }]);
  }, []);
  const dismiss = (id: number) => setToasts((t) => t.filter((x) => x.id !== id));
  return (
    <ToastContext.Provider value={show}>
      {children}
      {/* A live region without the status role: pages keep their own role="status" messages unambiguous. */}
      <div className="toasts" aria-live="polite" aria-atomic="false">
        {toasts.map((t) => (
          <ToastItem key={t.id} toast={t} onDismiss={() => dismiss(t.id)} />
        ))}
      </div>
    </ToastContext.Provider>
  );
}

function ToastItem({ toast, onDismiss }: { toast: Toast; onDismiss: () => void }) {
  useEffect(() => {
    const timer = setTimeout(onDismiss, 6000);
    return () => clearTimeout(timer);
  }, [onDismiss]);
  return (
    <div className={`toast ${toast.tone}`} data-testid="toast">
      <span>{toast.text}</span>
      <button type="button" className="secondary small" onClick={onDismiss} aria-label="Dismiss">
        ×
      </button>
    </div>
  );
}

export function useToast() {
  return useContext(ToastContext);
}
