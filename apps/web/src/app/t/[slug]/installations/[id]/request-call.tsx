import type { CallOutcome } from "~/lib/request-log";

/** How a call through the gateway reads in the request log: its outcome's words and tone, the name called. */
export const OUTCOME_TONE: Record<CallOutcome, string> = {
  success: "ok",
  tool_error: "warning",
  error: "danger",
  blocked: "warning",
};

export const outcomeLabel = (o: CallOutcome) => o.replace("_", " ");

/** The name the client called, and the upstream's beneath it when the gateway renamed or prefixed it. */
export function CallName({ method, requested, target }: { method: string; requested: string | null; target: string }) {
  const called = requested ?? target;
  return (
    <span className="cell-stack">
      <code className="tool-name">{called}</code>
      <span className="muted small">
        {method}
        {called !== target && (
          <>
            {" · upstream "}
            <code className="tool-name" data-testid="request-upstream-name">
              {target}
            </code>
          </>
        )}
      </span>
    </span>
  );
}
