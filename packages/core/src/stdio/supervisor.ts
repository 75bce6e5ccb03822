import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { CRASH_POLICY, IDLE_POLICY, recordCrash } from "../policies";
import { Activity } from "./activity";
import { systemClock, type SupervisorClock } from "./clock";
import { PermanentlyFailedError, type SupervisorEvent } from "./events";
import type { StdioLaunch } from "./launch";
import type { StdioLimitError } from "./limits";
import { spawnStdioProcess, type ProcessExit, type StdioProcessHandle } from "./process";

export interface StdioSupervisorOptions {
  /** The launch of an instance, resolved again on every spawn so config changes apply on the next start. */
  resolveLaunch: (instanceId: string) => Promise<StdioLaunch>;
  onEvent?: (event: SupervisorEvent) => void;
  clock?: SupervisorClock;
  spawn?: (launch: StdioLaunch) => Promise<StdioProcessHandle>;
  /** Stop a process after this long without traffic; 0 disables. Defaults to IDLE_POLICY (3 minutes). */
  idleStopMs?: number;
  /** Between SIGTERM and SIGKILL of the process group. */
  killGraceMs?: number;
  /**
   * Whether a message we send counts as use for the idle stop (default: every message does). A gateway that
   * health-checks its servers with `ping` says no to those, or a probed server would never go idle; the
   * answer to a request that does not count does not count either.
   */
  isActivity?: (message: JSONRPCMessage) => boolean;
}

export interface SupervisedState {
  running: boolean;
  pid: number | null;
  crashesInWindow: number;
  permanentlyFailed: boolean;
  stderrTail: string;
}

interface Slot {
  instanceId: string;
  proc: StdioProcessHandle | undefined;
  /** A transport was handed out for the running process: its MCP session belongs to that client. */
  claimed: boolean;
  activity: Activity | undefined;
  crashes: number[];
  permanentlyFailed: boolean;
  /** Processes we are stopping on purpose; their exit is not a crash. */
  stopping: WeakSet<StdioProcessHandle>;
  idleTimer: unknown;
  lastStderr: string;
  /** Lifecycle operations of one instance run one after the other. */
  queue: Promise<unknown>;
}

/**
 * Runs the stdio servers of a worker, one process per instance: started on demand by `connect` (the pool's
 * connector), restarted on crash within the crash policy, stopped when idle, killed as a whole process group.
 * It never touches the catalogue: cached tools outlive every stop and crash.
 */
export class StdioSupervisor {
  private readonly slots = new Map<string, Slot>();
  private readonly clock: SupervisorClock;
  private readonly spawn: (launch: StdioLaunch) => Promise<StdioProcessHandle>;
  private readonly idleStopMs: number;
  private readonly killGraceMs: number;

  constructor(private readonly options: StdioSupervisorOptions) {
    this.clock = options.clock ?? systemClock;
    this.spawn = options.spawn ?? ((launch) => spawnStdioProcess(launch));
    this.idleStopMs = options.idleStopMs ?? IDLE_POLICY.idleStopMs;
    this.killGraceMs = options.killGraceMs ?? 2_000;
  }

  /**
   * A transport to the instance's process, starting it if needed. Asked again for a process whose transport
   * was already handed out, the previous client has given up on that session (it timed out or failed), so the
   * process is replaced by a fresh one. Closing the transport leaves the process running.
   */
  connect(instanceId: string): Promise<Transport> {
    const slot = this.slot(instanceId);
    return this.serial(slot, async () => {
      if (slot.permanentlyFailed) throw new PermanentlyFailedError(instanceId);
      if (slot.proc && slot.claimed) await this.stopProcess(slot);
      const proc = slot.proc ?? (await this.spawnProcess(slot));
      const activity = slot.activity;
      const counts = this.options.isActivity ?? (() => true);
      slot.claimed = true;
      return proc.createTransport({
        onSend: (message) => activity?.sent(message, this.clock.now(), counts(message)),
        onReceive: (message) => activity?.received(message, this.clock.now()),
        onFault: (error) => this.onFault(slot, proc, error),
      });
    });
  }

  /** Start the process now (if not running) without handing out a transport. */
  start(instanceId: string): Promise<void> {
    const slot = this.slot(instanceId);
    return this.serial(slot, async () => {
      if (slot.permanentlyFailed) throw new PermanentlyFailedError(instanceId);
      if (!slot.proc) await this.spawnProcess(slot);
    });
  }

  /** Stop the process (tree) on request; it starts again on the next connect. */
  stop(instanceId: string): Promise<void> {
    const slot = this.slots.get(instanceId);
    if (!slot) return Promise.resolve();
    return this.serial(slot, async () => {
      if (!slot.proc) return;
      await this.stopProcess(slot);
      this.emit({ type: "stopped", instanceId });
    });
  }

  /** The explicit restart: forgets the crash history (lifting permanently_failed) and starts a fresh process. */
  restart(instanceId: string): Promise<void> {
    const slot = this.slot(instanceId);
    return this.serial(slot, async () => {
      slot.crashes = [];
      slot.permanentlyFailed = false;
      if (slot.proc) await this.stopProcess(slot);
      await this.spawnProcess(slot);
    });
  }

  /** Stop and forget an instance (uninstalled). */
  async remove(instanceId: string): Promise<void> {
    await this.stop(instanceId);
    this.slots.delete(instanceId);
  }

  /** Stop every process (shutdown). */
  async closeAll(): Promise<void> {
    await Promise.all([...this.slots.keys()].map((id) => this.stop(id)));
  }

  /**
   * Stop now every process that has been quiet (and not busy) for the idle period as of `now`, as the idle
   * timers would; returns the instances stopped. For an operator's sweep and for tests that cannot wait.
   */
  async stopIdle(now = this.clock.now()): Promise<string[]> {
    const stopped: string[] = [];
    await Promise.all(
      [...this.slots.values()].map((slot) =>
        this.serial(slot, async () => {
          const { proc, activity } = slot;
          if (!proc || !activity || activity.busy || !(this.idleStopMs > 0) || now - activity.lastAt < this.idleStopMs)
            return;
          await this.stopProcess(slot);
          stopped.push(slot.instanceId);
          this.emit({ type: "idle_stopped", instanceId: slot.instanceId });
        }),
      ),
    );
    return stopped;
  }

  /** Instances whose process runs right now. */
  running(): string[] {
    return [...this.slots.values()].filter((slot) => slot.proc !== undefined).map((slot) => slot.instanceId);
  }

  /**
   * Whether the running process of an instance waits on a request of ours, and when it was last used; undefined
   * when none runs. For a caller that must choose which of its processes to stop first.
   */
  activity(instanceId: string): { busy: boolean; lastAt: number } | undefined {
    const slot = this.slots.get(instanceId);
    if (!slot?.proc || !slot.activity) return undefined;
    return { busy: slot.activity.busy, lastAt: slot.activity.lastAt };
  }

  /** Count activity that does not go through a handed-out transport. */
  touch(instanceId: string): void {
    const activity = this.slots.get(instanceId)?.activity;
    if (activity) activity.lastAt = this.clock.now();
  }

  state(instanceId: string): SupervisedState {
    const slot = this.slots.get(instanceId);
    const now = this.clock.now();
    return {
      running: slot?.proc !== undefined,
      pid: slot?.proc?.pid ?? null,
      crashesInWindow: slot?.crashes.filter((t) => now - t < CRASH_POLICY.windowMs).length ?? 0,
      permanentlyFailed: slot?.permanentlyFailed ?? false,
      stderrTail: slot?.proc?.stderrTail() ?? slot?.lastStderr ?? "",
    };
  }

  private slot(instanceId: string): Slot {
    let slot = this.slots.get(instanceId);
    if (!slot) {
      slot = {
        instanceId,
        proc: undefined,
        claimed: false,
        activity: undefined,
        crashes: [],
        permanentlyFailed: false,
        stopping: new WeakSet(),
        idleTimer: undefined,
        lastStderr: "",
        queue: Promise.resolve(),
      };
      this.slots.set(instanceId, slot);
    }
    return slot;
  }

  private serial<T>(slot: Slot, fn: () => Promise<T>): Promise<T> {
    const run = slot.queue.then(fn, fn);
    slot.queue = run.catch(() => {});
    return run;
  }

  private async spawnProcess(slot: Slot): Promise<StdioProcessHandle> {
    const proc = await this.spawn(await this.options.resolveLaunch(slot.instanceId));
    slot.proc = proc;
    slot.claimed = false;
    slot.activity = new Activity(this.clock.now());
    this.emit({ type: "started", instanceId: slot.instanceId, pid: proc.pid });
    this.scheduleIdleCheck(slot, this.idleStopMs);
    void proc.exited.then((exit) => this.onExit(slot, proc, exit));
    return proc;
  }

  private async stopProcess(slot: Slot): Promise<void> {
    const proc = slot.proc;
    if (!proc) return;
    slot.stopping.add(proc);
    this.clearIdleCheck(slot);
    slot.proc = undefined;
    slot.claimed = false;
    slot.activity = undefined;
    await proc.kill(this.killGraceMs);
    slot.lastStderr = proc.stderrTail();
  }

  /**
   * The server broke a limit (StdioLimits): its process group is stopped at once and it is not restarted; the
   * next connect starts a fresh one. Its exit is ours, not a crash, so the crash policy does not count it.
   */
  private onFault(slot: Slot, proc: StdioProcessHandle, error: StdioLimitError): void {
    if (slot.proc !== proc || slot.stopping.has(proc)) return;
    slot.stopping.add(proc);
    slot.proc = undefined;
    slot.claimed = false;
    slot.activity = undefined;
    this.clearIdleCheck(slot);
    void proc.kill(this.killGraceMs).then(() => {
      slot.lastStderr = proc.stderrTail();
      this.emit({
        type: "faulted",
        instanceId: slot.instanceId,
        limit: error.kind,
        message: error.message,
        stderrTail: slot.lastStderr,
      });
    });
  }

  private onExit(slot: Slot, proc: StdioProcessHandle, exit: ProcessExit): void {
    if (slot.stopping.has(proc) || slot.proc !== proc) return;
    slot.lastStderr = proc.stderrTail();
    slot.proc = undefined;
    slot.claimed = false;
    slot.activity = undefined;
    this.clearIdleCheck(slot);
    void this.serial(slot, () => this.handleCrash(slot, exit, slot.lastStderr));
  }

  /** Records the crash; restarts unless this crash exhausted the policy. A failing restart is a crash too. */
  private async handleCrash(slot: Slot, exit: ProcessExit, stderrTail: string): Promise<void> {
    const { history, crashesInWindow, permanentlyFailed } = recordCrash(slot.crashes, this.clock.now());
    slot.crashes = history;
    const { instanceId } = slot;
    this.emit({
      type: "crashed",
      instanceId,
      exitCode: exit.exitCode,
      signal: exit.signal,
      crashesInWindow,
      stderrTail,
      willRestart: !permanentlyFailed,
    });
    if (permanentlyFailed) {
      slot.permanentlyFailed = true;
      this.emit({ type: "permanently_failed", instanceId, crashesInWindow, stderrTail });
      return;
    }
    if (slot.proc) return; // somebody already started a new one
    try {
      await this.spawnProcess(slot);
    } catch (error) {
      await this.handleCrash(
        slot,
        { exitCode: null, signal: null },
        error instanceof Error ? error.message : String(error),
      );
    }
  }

  private scheduleIdleCheck(slot: Slot, delayMs: number): void {
    this.clearIdleCheck(slot);
    if (!(this.idleStopMs > 0)) return;
    slot.idleTimer = this.clock.setTimeout(() => this.checkIdle(slot), Math.max(0, delayMs));
  }

  private clearIdleCheck(slot: Slot): void {
    if (slot.idleTimer !== undefined) this.clock.clearTimeout(slot.idleTimer);
    slot.idleTimer = undefined;
  }

  private checkIdle(slot: Slot): void {
    slot.idleTimer = undefined;
    const { proc, activity } = slot;
    if (!proc || !activity) return;
    const quietFor = this.clock.now() - activity.lastAt;
    if (activity.busy || quietFor < this.idleStopMs) {
      this.scheduleIdleCheck(slot, activity.busy ? this.idleStopMs : this.idleStopMs - quietFor);
      return;
    }
    void this.serial(slot, async () => {
      if (slot.proc !== proc) return; // restarted or stopped meanwhile
      await this.stopProcess(slot);
      this.emit({ type: "idle_stopped", instanceId: slot.instanceId });
    });
  }

  private emit(event: SupervisorEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch {
      // A failing listener must not break supervision.
    }
  }
}
