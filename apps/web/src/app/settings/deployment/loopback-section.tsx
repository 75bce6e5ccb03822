"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { parsePortList } from "@switchboard/core/sandbox";
import { ConfirmButton } from "~/components/confirm-button";
import { errorMessage } from "~/lib/errors";
import { useTRPC } from "~/trpc/react";
import { OneFieldForm, useStoreSettings, WithSettings } from "./section-parts";

/** Host loopback ports sandboxes may be given; an installation's admin picks among them, per installation. */
export function LoopbackSection() {
  const trpc = useTRPC();
  const store = useStoreSettings();
  const [port, setPort] = useState("");
  const [invalid, setInvalid] = useState<string | null>(null);
  const add = useMutation(
    trpc.deployment.addSandboxLoopbackPort.mutationOptions({
      onSuccess: (data) => {
        setPort("");
        store(data);
      },
    }),
  );
  const remove = useMutation(trpc.deployment.removeSandboxLoopbackPort.mutationOptions({ onSuccess: store }));
  const failure = invalid ?? ((add.error ?? remove.error) ? errorMessage(add.error ?? remove.error) : null);
  return (
    <section className="card stack" aria-labelledby="loopback-heading">
      <h2 id="loopback-heading">Host services sandboxes may reach</h2>
      <p className="muted">
        Ports on the worker host&apos;s 127.0.0.1 that stdio servers with outbound access may be given. Each
        installation&apos;s admin picks among them; teams cannot add others. Switchboard&apos;s own services are never
        reachable, whoever asks.
      </p>
      <WithSettings>
        {({ sandboxLoopback }) => (
          <>
            {sandboxLoopback.ports.length === 0 ? (
              <p className="empty">No ports allowed here: sandboxes reach none of the host&apos;s services.</p>
            ) : (
              <ul className="stack" style={{ listStyle: "none", padding: 0, margin: 0 }}>
                {sandboxLoopback.ports.map((p) => (
                  <li
                    key={p}
                    className="row"
                    style={{ justifyContent: "space-between" }}
                    data-testid="loopback-port-row"
                  >
                    <code>127.0.0.1:{p}</code>
                    <ConfirmButton
                      label={`Remove port ${p}`}
                      title={`Remove port ${p}?`}
                      body="Stdio servers that were given it restart without it."
                      confirmLabel="Remove"
                      disabled={remove.isPending}
                      onConfirm={() => remove.mutate({ port: p })}
                    />
                  </li>
                ))}
              </ul>
            )}
            <p className="muted small" data-testid="loopback-operator-ports">
              Allowed by the operator (STDIO_SANDBOX_LOOPBACK_PORTS):{" "}
              {sandboxLoopback.operatorPorts.join(", ") || "none"}
            </p>
            <p className="muted small" data-testid="loopback-reserved-ports">
              Never: {sandboxLoopback.reserved.map((r) => `${r.port} (${r.service})`).join(", ")}
            </p>
          </>
        )}
      </WithSettings>
      <OneFieldForm
        label="Allow a host service"
        field="Port on 127.0.0.1"
        input={{ inputMode: "numeric", placeholder: "8080" }}
        value={port}
        onValue={setPort}
        onSubmit={() => {
          const parsed = parsePortList(port);
          const one = "ports" in parsed && parsed.ports.length === 1 ? parsed.ports[0] : undefined;
          setInvalid(one === undefined ? "Enter one port, 1 to 65535." : null);
          if (one !== undefined) add.mutate({ port: one });
        }}
        pending={add.isPending}
        submitLabel="Allow"
        pendingLabel="Allowing…"
      />
      {failure && (
        <p className="error" role="alert">
          {failure}
        </p>
      )}
    </section>
  );
}
