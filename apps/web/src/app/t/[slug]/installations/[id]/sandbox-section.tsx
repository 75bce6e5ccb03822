"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRef, useState, type FormEvent } from "react";
import { useToast } from "~/components/ui/toast";
import { SANDBOX_DEFAULTS } from "@switchboard/core/sandbox";
import type { RouterOutputs } from "~/trpc/types";
import { useTRPC } from "~/trpc/react";
import { FormError } from "~/components/ui/form-error";

type Installation = RouterOutputs["installation"]["get"];
type Sandbox = NonNullable<Installation["sandbox"]>;

const LIMITS = [
  { key: "memoryMb", label: "Memory (MB)" },
  { key: "processes", label: "Processes and threads" },
  { key: "openFiles", label: "Open files per process" },
  { key: "cpuSeconds", label: "CPU seconds per process" },
  { key: "diskMb", label: "Disk, home and /tmp (MB)" },
] as const;

/** What each limit rests on on this host, as the worker found it (whole sandbox, per process, or not at all). */
function Enforcement({ host }: { host: Sandbox["host"] }) {
  if (!host?.enforcement) return null;
  return (
    <ul className="muted small" aria-label="What this host enforces">
      {Object.entries(host.enforcement).map(([limit, { detail }]) => (
        <li key={limit}>{detail}</li>
      ))}
    </ul>
  );
}

/** Shown on every stdio installation when its servers do not run in a sandbox on this deployment. */
export function SandboxWarning({ sandbox }: { sandbox: Installation["sandbox"] }) {
  const host = sandbox?.host;
  if (!host) return null;
  if (host.mode === "off") {
    return (
      <p className="card error" role="alert">
        The sandbox is turned off on this deployment: this server runs unconfined, as the worker&apos;s user, and can
        read what the worker can.
      </p>
    );
  }
  if (!host.available)
    return (
      <p className="card error" role="alert">
        {host.reason ?? "Stdio servers cannot start here: the sandbox is unavailable."}
      </p>
    );
  return null;
}

/** Limits and network of this installation's sandboxes; an empty field takes the host's default. */
export function SandboxSection({
  teamId,
  installationId,
  sandbox,
}: {
  teamId: string;
  installationId: string;
  sandbox: Sandbox;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const save = useMutation(
    trpc.installation.updateSandbox.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.installation.pathFilter()),
    }),
  );
  const defaults = { ...SANDBOX_DEFAULTS, ...sandbox.host?.defaults };
  const { settings } = sandbox;
  const [outbound, setOutbound] = useState(settings.outbound ?? defaults.outbound);
  const [pending, setPending] = useState<Record<string, unknown> | null>(null);
  const confirmRef = useRef<HTMLDialogElement>(null);
  const toast = useToast();
  const overview = useQuery(trpc.instance.overview.queryOptions({ teamId }));
  const counts = overview.data?.servers.find((s) => s.id === installationId)?.counts;
  const instanceCount = counts ? Object.values(counts).reduce((n, c) => n + (c ?? 0), 0) : null;
  const running = counts?.online ?? 0;

  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const next: Record<string, unknown> = { outbound };
    for (const { key } of LIMITS) {
      const raw = String(form.get(key) ?? "").trim();
      if (raw !== "") next[key] = Number(raw);
    }
    const ports = form.getAll("loopbackPorts").map(Number);
    if (outbound && ports.length > 0) next.loopbackPorts = ports;
    // Saving restarts every member's instance: say how many before it happens.
    setPending(next);
    confirmRef.current?.showModal();
  };
  const confirm = () => {
    confirmRef.current?.close();
    if (pending)
      save.mutate(
        { teamId, installationId, settings: pending },
        { onSuccess: () => toast(`Saved. ${plural(instanceCount ?? 0, "instance")} restarting.`) },
      );
    setPending(null);
  };

  return (
    <section className="card stack" aria-labelledby="sandbox-h">
      <h2 id="sandbox-h">Sandbox</h2>
      <p className="muted">
        Each member&apos;s server runs in its own sandbox: a read-only system, a private home, none of the host&apos;s
        files or services. Leave a limit empty for the host&apos;s default. Saving restarts every member&apos;s
        instance.
      </p>
      <Enforcement host={sandbox.host} />
      <form className="stack" onSubmit={submit} key={JSON.stringify(settings)}>
        <div className="row">
          {LIMITS.map(({ key, label }) => (
            <label key={key} className="field">
              {label}
              <input
                name={key}
                type="number"
                min={1}
                max={key === "diskMb" ? (sandbox.host?.maxDiskMb ?? undefined) : undefined}
                defaultValue={settings[key] ?? ""}
                placeholder={`default ${defaults[key]}`}
              />
            </label>
          ))}
        </div>
        <label style={{ flexDirection: "row", alignItems: "center" }}>
          <input type="checkbox" name="outbound" checked={outbound} onChange={(e) => setOutbound(e.target.checked)} />
          Allow outbound network access (the internet; never the host&apos;s own services unless listed below)
        </label>
        {sandbox.host && !sandbox.host.outbound && sandbox.host.available && (
          <p className="muted small">
            This host cannot give sandboxed servers a network right now; with outbound access on, they will not start.
          </p>
        )}
        <fieldset className="stack" disabled={!outbound}>
          <legend>Host services the server may reach on 127.0.0.1</legend>
          {sandbox.loopback.allowed.length === 0 ? (
            <p className="muted small">
              This deployment lets sandboxes reach none of the host&apos;s services. A deployment owner can name ports
              on the Deployment settings page; Switchboard&apos;s own (database, Redis, bridge, console) never.
            </p>
          ) : (
            <div className="row">
              {sandbox.loopback.allowed.map((port) => (
                <label key={port} style={{ flexDirection: "row", alignItems: "center" }}>
                  <input
                    type="checkbox"
                    name="loopbackPorts"
                    value={port}
                    defaultChecked={(settings.loopbackPorts ?? []).includes(port)}
                  />
                  port {port}
                </label>
              ))}
            </div>
          )}
          {sandbox.loopback.notInEffect.length > 0 && (
            <ul className="muted small" data-testid="loopback-not-in-effect">
              {sandbox.loopback.notInEffect.map(({ port, reason }) => (
                <li key={port}>Not in effect: {reason}</li>
              ))}
            </ul>
          )}
        </fieldset>
        <div>
          <button type="submit" disabled={save.isPending}>
            Save and restart
          </button>
        </div>
      </form>
      <dialog
        ref={confirmRef}
        aria-labelledby="sandbox-confirm-title"
        aria-describedby="sandbox-confirm-body"
        onClose={() => setPending(null)}
      >
        <div className="stack">
          <h2 id="sandbox-confirm-title">
            {instanceCount === null
              ? "Save and restart every instance?"
              : `Save and restart ${plural(instanceCount, "instance")}?`}
          </h2>
          <p id="sandbox-confirm-body">
            {instanceCount === null
              ? "Every member's instance of this server restarts with the new sandbox."
              : `Every member's instance of this server restarts with the new sandbox: ${plural(instanceCount, "instance")}, ${running} online now. Their clients lose the connection for a moment.`}
          </p>
          <div className="row" style={{ justifyContent: "flex-end" }}>
            <button type="button" className="secondary" autoFocus onClick={() => confirmRef.current?.close()}>
              Cancel
            </button>
            <button type="button" onClick={confirm}>
              Save and restart
            </button>
          </div>
        </div>
      </dialog>
      <FormError error={save.error} />
      {save.isSuccess && (
        <p className="muted" role="status">
          Saved. The instances are restarting.
        </p>
      )}
    </section>
  );
}

const plural = (n: number, one: string) => `${n} ${n === 1 ? one : `${one}s`}`;
