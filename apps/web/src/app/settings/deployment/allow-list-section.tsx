"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { LAUNCHERS, type AllowedCommand, type Launcher } from "@switchboard/core/deployment";
import { ConfirmButton } from "~/components/confirm-button";
import { ResponsiveTable } from "~/components/ui/responsive-table";
import { useTRPC } from "~/trpc/react";
import { ActionError, Loading, useSettings, useStoreSettings } from "./section-parts";

/** The commands stdio servers may run: programs, and packages through a launcher. */
export function AllowListSection() {
  const trpc = useTRPC();
  const settings = useSettings();
  const store = useStoreSettings();
  const remove = useMutation(trpc.deployment.removeAllowedCommand.mutationOptions({ onSuccess: store }));
  return (
    <section className="card stack" aria-labelledby="allow-list-heading">
      <h2 id="allow-list-heading">Allowed commands</h2>
      <ul className="muted">
        <li>
          <strong>Program</strong>: a name found on the worker&apos;s PATH (<code>node</code>) or an absolute path. Team
          admins may pass it any arguments, so allowing an interpreter such as node or python lets them run any code
          with it.
        </li>
        <li>
          <strong>Package</strong>: a launcher (npx, uvx, …) and a package name. Team admins may run any version of that
          package through that launcher; options that change the registry or run another program (<code>-c</code>,{" "}
          <code>--registry</code>, <code>--package</code>, <code>--from</code>) are refused.
        </li>
      </ul>
      <ResponsiveTable
        label="Allowed commands"
        columns={["Command", "Kind"]}
        actions
        query={settings}
        rows={settings.data?.allowList}
        empty="No commands allowed yet: no stdio server can be added or started."
        actionError={remove.error}
        errorPrefix="Could not load the settings: "
        loading={<Loading />}
        row={({ entry, label }) => (
          <tr key={label} data-testid="allowed-command-row">
            <th scope="row">
              <code>{label}</code>
            </th>
            <td data-label="Kind">{entry.kind === "executable" ? "program" : `package (${entry.launcher})`}</td>
            <td data-label="">
              <ConfirmButton
                label={`Remove ${label}`}
                title={`Remove ${label}?`}
                body="Stdio servers that run it stop, and teams can no longer add or install it."
                confirmLabel="Remove"
                disabled={remove.isPending}
                onConfirm={() => remove.mutate({ entry: entry as AllowedCommand })}
              />
            </td>
          </tr>
        )}
      />
      <AddCommandForm />
    </section>
  );
}

function AddCommandForm() {
  const trpc = useTRPC();
  const store = useStoreSettings();
  const [kind, setKind] = useState<"executable" | "package">("package");
  const [launcher, setLauncher] = useState<Launcher>("npx");
  const [name, setName] = useState("");
  const add = useMutation(
    trpc.deployment.addAllowedCommand.mutationOptions({
      onSuccess: (data) => {
        setName("");
        store(data);
      },
    }),
  );
  return (
    <form
      className="stack"
      aria-label="Allow a command"
      onSubmit={(e) => {
        e.preventDefault();
        add.mutate({ entry: kind === "executable" ? { kind, name } : { kind, launcher, name } });
      }}
    >
      <div className="row" style={{ alignItems: "flex-end" }}>
        <label>
          Kind
          <select value={kind} onChange={(e) => setKind(e.target.value as "executable" | "package")}>
            <option value="package">Package</option>
            <option value="executable">Program</option>
          </select>
        </label>
        {kind === "package" && (
          <label>
            Launcher
            <select value={launcher} onChange={(e) => setLauncher(e.target.value as Launcher)}>
              {LAUNCHERS.map((l) => (
                <option key={l} value={l}>
                  {l}
                </option>
              ))}
            </select>
          </label>
        )}
        <label style={{ flex: 1 }}>
          {kind === "package" ? "Package name" : "Program"}
          <input
            required
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder={
              kind === "package" ? "@modelcontextprotocol/server-everything" : "node or /usr/local/bin/my-server"
            }
          />
        </label>
        <button type="submit" disabled={add.isPending}>
          {add.isPending ? "Adding…" : "Allow"}
        </button>
      </div>
      <ActionError error={add.error} />
    </form>
  );
}
