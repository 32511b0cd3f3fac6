import type { RuntimeEnv } from './env.js';

/**
 * The replica a {@link ControllerProcess} runs as. It is the runtime's controller instance:
 * `crash` kills this incarnation and the manager starts a fresh one after the restart delay.
 * @public
 */
export interface ProcessReplica {
  /** The controller's name. */
  readonly name: string;
  readonly replica: number;
  /** `controller:<name>/<replica>`, the actor its writes are recorded as. */
  readonly actor: string;
  /** False once this incarnation crashed or was shut down. */
  readonly alive: boolean;
  /** API calls made by this incarnation (the crash seam's `seq`). */
  callSeq: number;
  /**
   * Kills this incarnation (the crash-restart fault, or the process ending itself). The next
   * incarnation starts after `restartAfterMs` when given (a hosted program's CrashLoopBackOff),
   * else after the manager's restart delay.
   */
  crash(reason: string, restartAfterMs?: number): void;
}

/** One running incarnation of a process. @public */
export interface ProcessHandle {
  /**
   * Stops the incarnation: `'crash'` (a restart follows) or `'shutdown'` (end of the run, or a
   * retired replica). May be called again with `'shutdown'` after a crash.
   */
  stop(reason: 'crash' | 'shutdown'): void;
  /**
   * The settle phase: forces the process's caches to relist. A hosted process does nothing
   * here (the settle phase only stops injecting faults; it repairs nothing for it).
   */
  relist(): void;
  /**
   * Ends the process's watches of `kind` the way an apiserver ends a watch that fell behind
   * (410 Expired): its client relists. The coalescing fault's catch-up.
   */
  expireWatches?(kind: string): void;
  /**
   * Holds the process (`true`: holds nest) or lets it go (`false`): while held, nothing that could
   * start a decision reaches it (its timers' firings, responses, watch events wait, in order), as
   * a busy event loop or a slow network delays them. The `slow` benign variation.
   */
  hold?(on: boolean): void;
}

/**
 * A controller that runs its own loops (for instance `@kubernetes/client-node` informers talking
 * to the simulated API over HTTP). When a definition has one, the runtime starts it in place of
 * its informers, workqueue and workers, and still restarts it after crashes, adds replicas and
 * relists it at settle.
 * @public
 */
export interface ControllerProcess {
  start(env: RuntimeEnv, replica: ProcessReplica): ProcessHandle;
}
