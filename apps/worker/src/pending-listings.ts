/**
 * Instances whose discovery on this worker is connecting and has not listed yet. A list_changed their connection
 * hears meanwhile is in what that listing will see, so it needs no refresh of its own: servers announce the
 * tools they register as they start (on `initialized`), and without this every discovery of such a server would
 * be followed by a refresh that lists everything again and starts one more process for nothing.
 */
export class PendingListings {
  private readonly pending = new Map<string, number>();

  /** From now until the handle's `close()` (call it as the listing starts, and in `finally`). */
  open(instanceId: string): { close(): void } {
    this.pending.set(instanceId, (this.pending.get(instanceId) ?? 0) + 1);
    let open = true;
    return {
      close: () => {
        if (!open) return;
        open = false;
        const left = (this.pending.get(instanceId) ?? 1) - 1;
        if (left > 0) this.pending.set(instanceId, left);
        else this.pending.delete(instanceId);
      },
    };
  }

  /** True when a listing of the instance is about to start here: a change heard now is in what it lists. */
  covers(instanceId: string): boolean {
    return this.pending.has(instanceId);
  }
}
