"use client";

import { useId, useRef } from "react";

/**
 * An action behind a native modal <dialog>: focus moves into it (on Cancel), Escape cancels and the browser
 * returns focus to the button that opened it. The dialog is named by its title and described by its body.
 */
export function ConfirmButton({
  label,
  title,
  body,
  confirmLabel,
  onConfirm,
  disabled,
  triggerLabel,
  tone = "danger",
  triggerClassName = "secondary",
}: {
  label: string;
  title: string;
  body: React.ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  disabled?: boolean;
  /** The trigger's accessible name when `label` alone is ambiguous in a list ("Revoke" → "Revoke laptop token"). */
  triggerLabel?: string;
  tone?: "danger" | "primary";
  triggerClassName?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  return (
    <>
      <button
        type="button"
        className={triggerClassName}
        disabled={disabled}
        aria-label={triggerLabel}
        aria-haspopup="dialog"
        onClick={() => ref.current?.showModal()}
      >
        {label}
      </button>
      <dialog ref={ref} aria-labelledby={`${id}-title`} aria-describedby={`${id}-body`}>
        {/* Not a <form method="dialog">: the button may sit inside a form, and a form inside a form is dropped by the
            HTML parser, so the server's markup would not match the client's (React's hydration error #418). */}
        <div className="stack">
          <h2 id={`${id}-title`}>{title}</h2>
          <div id={`${id}-body`}>{typeof body === "string" ? <p>{body}</p> : body}</div>
          <div className="row" style={{ justifyContent: "flex-end" }}>
            <button type="button" className="secondary" autoFocus onClick={() => ref.current?.close()}>
              Cancel
            </button>
            <button
              type="button"
              className={tone === "danger" ? "danger" : undefined}
              onClick={() => {
                ref.current?.close();
                onConfirm();
              }}
            >
              {confirmLabel}
            </button>
          </div>
        </div>
      </dialog>
    </>
  );
}
