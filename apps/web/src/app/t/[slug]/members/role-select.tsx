"use client";

import { useId, useRef, useState } from "react";
import { roleChangeProblem, TEAM_ROLES, type TeamRole } from "@switchboard/core/accounts";

type Role = TeamRole;

const WHAT_CHANGES: Record<Role, string> = {
  owner: "Owners can do everything admins can, make and unmake owners, and delete the team.",
  admin: "Admins install servers, manage members and invitations, restart instances and read the request log.",
  member: "Members use the team's servers with their own settings; they cannot install servers or manage members.",
};

/**
 * A member's role, changed only after a confirmation that names the person and what the new role may do. It
 * offers what core's `roleChangeProblem` allows the viewer (an owner, or else an admin: members see no select),
 * the rule the server applies too: "owner" only to owners, and an owner's role only by an owner.
 */
export function RoleSelect({
  email,
  name,
  role,
  isOwner,
  disabled,
  onChange,
}: {
  email: string;
  name: string;
  role: Role;
  isOwner: boolean;
  disabled: boolean;
  onChange: (role: Role) => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const select = useRef<HTMLSelectElement>(null);
  const [pending, setPending] = useState<Role | null>(null);
  const id = useId();
  const actor: Role = isOwner ? "owner" : "admin";
  const options = TEAM_ROLES.filter((to) => to === role || roleChangeProblem({ actor, from: role, to }) === null);
  const close = () => {
    dialog.current?.close();
    setPending(null);
  };
  return (
    <>
      <select
        ref={select}
        aria-label={`Role of ${email}`}
        value={role}
        disabled={disabled || options.length < 2}
        onChange={(e) => {
          const next = e.target.value as Role;
          if (next === role) return;
          setPending(next);
          dialog.current?.showModal();
        }}
      >
        {options.map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
      <dialog
        ref={dialog}
        aria-labelledby={`${id}-title`}
        aria-describedby={`${id}-body`}
        onClose={() => setPending(null)}
      >
        <form method="dialog" className="stack">
          <h2 id={`${id}-title`}>
            {pending ? `Make ${name} ${pending === "admin" ? "an" : "a"} ${pending}?` : "Change role?"}
          </h2>
          <p id={`${id}-body`}>
            {pending ? `${email} is ${role === "admin" ? "an" : "a"} ${role} now. ${WHAT_CHANGES[pending]}` : ""}
          </p>
          <div className="row" style={{ justifyContent: "flex-end" }}>
            <button type="submit" className="secondary" autoFocus onClick={close}>
              Cancel
            </button>
            <button
              type="button"
              onClick={() => {
                const next = pending;
                close();
                if (next) onChange(next);
              }}
            >
              {pending ? `Make ${pending}` : "Change"}
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}
