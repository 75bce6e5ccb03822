export { StdioSupervisor, type StdioSupervisorOptions, type SupervisedState } from "./supervisor";
export {
  PermanentlyFailedError,
  WorkerHandoverError,
  WorkerNotAnsweringError,
  WorkerUnavailableError,
  type SupervisorEvent,
  type SupervisorEventType,
} from "./events";
export { systemClock, type SupervisorClock } from "./clock";
export {
  DEFAULT_INHERITED_ENV,
  spawnStdioProcess,
  type ProcessExit,
  type SpawnOptions,
  type StdioProcessHandle,
} from "./process";
export { ProcessTransport, type TransportHooks } from "./process-transport";
export { DEFAULT_STDERR_TAIL, StderrTail, type StderrTailLimits } from "./stderr-tail";
export { groupAlive, killGroup, killWithThisProcess, processAlive, signalGroup } from "./process-group";
export type { StdioLaunch } from "./launch";
export {
  DEFAULT_STDIO_LIMITS,
  StdioLimitError,
  stdioLimitMessage,
  type StdioLimitKind,
  type StdioLimits,
} from "./limits";
