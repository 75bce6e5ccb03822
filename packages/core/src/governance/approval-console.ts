/**
 * How a held call reads in the console and in mail: who may decide it, and the mail an approver gets. Pure
 * functions; the rules (who may approve, for how long, the states) are in ./approvals.ts.
 */

/** The sentence a member who may not decide reads: who can. `approvers` are the named ones (empty: admins). */
export function whoMayApproveSentence(approvers: ReadonlyArray<{ name: string | null; email: string }>): string {
  if (approvers.length === 0) return "Only the team's admins can approve calls to this server.";
  const names = approvers.map((a) => a.name || a.email);
  const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
  return `Only ${list} can approve calls to this server.`;
}

/**
 * The mail approvers get when a call is held. It names the caller, the tool, the server and why, and links the
 * page; never the arguments, which may be sensitive (the page shows them to whoever may decide).
 */
export function approvalRequestMail(input: {
  link: string;
  caller: { name: string | null; email: string };
  tool: string;
  server: string;
  reason: string;
  expiresAt: Date;
}): { subject: string; text: string } {
  const who = input.caller.name ? `${input.caller.name} <${input.caller.email}>` : input.caller.email;
  return {
    subject: `Approval needed: ${input.tool} on ${input.server}`,
    text: [
      `${who} wants to call the tool ${input.tool} on ${input.server}, which needs approval.`,
      "",
      `Why: ${input.reason}`,
      "",
      `See the exact arguments and approve or deny it here (the request expires at ${input.expiresAt.toISOString()}):`,
      input.link,
      "",
      "You get this mail because you approve calls to this server in Switchboard.",
    ].join("\n"),
  };
}
