"use client";

import { useRef } from "react";

/** A destructive action behind a native <dialog>: focus moves into it, Escape cancels. */
export function ConfirmButton({ label, title, body, confirmLabel, onConfirm, disabled }: {
  label: string; title: string; body: string; confirmLabel: string; onConfirm: () => void; disabled?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  return (
    <>
      <button type="button" className="secondary" disabled={disabled} onClick={() => ref.current?.showModal()}>
        {label}
      </button>
      <dialog ref={ref} aria-labelledby={`${title}-title`}>
        <form method="dialog" className="stack">
          <h2 id={`${title}-title`}>{title}</h2>
          <p>{body}</p>
          <div className="row" style={{ justifyContent: "flex-end" }}>
            <button type="submit" className="secondary" autoFocus>Cancel</button>
            <button type="button" className="danger" onClick={() => { ref.current?.close(); onConfirm(); }}>
              {confirmLabel}
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}
