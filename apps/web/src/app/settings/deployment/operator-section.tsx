"use client";

import { WithSettings } from "./section-parts";

/** What the operator set in the server's environment, read only. */
export function OperatorSection() {
  return (
    <section className="card stack" aria-labelledby="operator-heading">
      <h2 id="operator-heading">Set by the operator</h2>
      <p className="muted">Read from the server&apos;s environment at start; change them there.</p>
      <WithSettings>
        {(settings) => (
          <dl className="stack" data-testid="operator-settings">
            <div>
              <dt>SIGNUP_MODE</dt>
              <dd>{settings.operator.signupMode ?? "not set (the setting above applies)"}</dd>
            </div>
            <div>
              <dt>APP_URL</dt>
              <dd>{settings.operator.appUrl}</dd>
            </div>
            <div>
              <dt>AUTH_RATE_LIMIT</dt>
              <dd>{settings.operator.authRateLimit}</dd>
            </div>
            <div>
              <dt>BRIDGE_SECRET</dt>
              <dd>
                {settings.operator.bridgeSecretSet
                  ? "set"
                  : "not set: stdio servers cannot be reached from the MCP route"}
              </dd>
            </div>
            <div>
              <dt>Stdio sandbox</dt>
              <dd>
                {settings.operator.sandbox
                  ? `${settings.operator.sandbox.state}: ${settings.operator.sandbox.detail}`
                  : "not reported by this version"}
              </dd>
            </div>
          </dl>
        )}
      </WithSettings>
    </section>
  );
}
