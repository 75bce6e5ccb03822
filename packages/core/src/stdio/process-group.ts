/**
 * Kill a whole process tree by signalling its process group. Servers launched through `npx`, `uvx` or a shell
 * start children that survive when only the direct child is killed, so every stdio server is spawned detached
 * (its own group, pgid = pid) and stopped through the group.
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false; // ESRCH: the group is already gone
  }
}

export function groupAlive(pgid: number): boolean {
  return signalGroup(pgid, 0);
}

/** SIGTERM the group, wait up to `graceMs` for it to disappear, then SIGKILL whatever is left. */
export async function killGroup(pgid: number, graceMs: number, pollMs = 25): Promise<void> {
  if (!signalGroup(pgid, "SIGTERM")) return;
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!groupAlive(pgid)) return;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  signalGroup(pgid, "SIGKILL");
}
