import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * How a process (or a run's code) ended abruptly: `process.exit(code)`, an exception nobody
 * caught, or a rejection nobody handled. Node ends a real process for each of them.
 * @public
 */
export type ExitKind = 'exit' | 'uncaught' | 'unhandled-rejection';

/** Something that would have ended the host process, as the guard recorded it. @public */
export interface RunEscape {
  /** Virtual time (ms) when it happened. */
  t: number;
  /** How it escaped; `replaced-builtin`: the code replaced a built-in every later run and the harness itself would have run under (steadystate put it back). */
  kind: ExitKind | 'replaced-builtin';
  /** Exit code: the one passed to `process.exit`, 1 for an uncaught exception or unhandled rejection (and a replaced built-in). */
  code: number;
  /** `process.exit(0)`, the error's `name: message`, or the built-ins replaced (`Math.max, Math.min`). */
  message: string;
  /** The stack of the call or of the error (file paths as the host reports them). */
  stack?: string;
  /** Where the code ran: `'a setTimeout callback'`, `'a promise'`, … */
  where?: string;
}

/** Real timers a run's code created (they do not run on virtual time), as reported. @public */
export interface RealTimerUse {
  setTimeout: number;
  setInterval: number;
  setImmediate: number;
  /** Still pending when the run ended, and cleared then. */
  clearedAtEnd: number;
  /** The first creating call, as one stack frame (`at reconcile (src/web.ts:12:5)`). */
  firstSite?: string;
}

/**
 * A hosted process incarnation, as the guard dispatches to it: the patched globals
 * (timers, clocks, env, argv, console) consult the incarnation in whose async context they are
 * called. Implemented by src/host/process-sandbox.ts.
 * @internal
 */
export interface ProcessSandbox {
  readonly alive: boolean;
  /** The actor its requests are recorded as (`controller:<name>/<replica>`), when it is a replica's process. */
  readonly actor?: string;
  setTimeout(fn: (...args: unknown[]) => void, ms: unknown, args: unknown[], repeat: boolean): object;
  setImmediate(fn: (...args: unknown[]) => void, args: unknown[]): object;
  /** Cancels a timer of this sandbox; false if `timer` is not one of its timers. */
  clearTimer(timer: unknown): boolean;
  /** Wall-clock milliseconds since the epoch, on the simulated clock. */
  epochMs(): number;
  /** Milliseconds since this incarnation started (performance.now). */
  uptimeMs(): number;
  readonly env: Record<string, string | undefined>;
  readonly argv: string[];
  log(level: 'debug' | 'info' | 'warn' | 'error', args: unknown[]): void;
  /** Ends the incarnation (exit, uncaught exception, unhandled rejection). */
  die(escape: RunEscape): void;
}

/** A real timeout this short (`setTimeout(fn)`, `setTimeout(fn, 0)`) is waited for: a yield, not a wait on the world outside. @internal */
export const SOON_MS = 1;

/** One run the guard watches over. @internal */
export interface RunScope {
  readonly id: number;
  /** Virtual time of the run (ms). */
  readonly now: () => number;
  readonly escapes: RunEscape[];
  readonly realTimers: RealTimerUse;
  /** Pending real timers the run's code created: cleared when the run ends. */
  readonly pending: Map<object, 'timeout' | 'interval' | 'immediate'>;
  /**
   * Of those, the timeouts of at most {@link SOON_MS} ms and the immediates (a reconcile yielding to
   * the event loop, `await new Promise((r) => setTimeout(r, 0))`), each with what ends the wait
   * for it: fired, cleared or the run ended. The kernel waits for them before it calls a task
   * blocked on something outside the simulation (red team H2b, stop 43).
   */
  readonly soon: Map<object, () => void>;
  /** The run hosts programs: its code runs in the async context (see {@link hostContext}). */
  readonly hosted: boolean;
}

/**
 * The timer whose firing the code in this async context continues (a hosted program's own
 * schedule: a `setInterval`, or a `setTimeout` of at least {@link SCHEDULE_MIN_MS}, set anywhere,
 * and every timer set in the continuation of one). Its writes are scheduled work, not reactions
 * to the world (properties/_internals/scheduled.ts). @internal
 */
export interface TimerCause {
  /** The schedule: `<incarnation>.<timer id>` of the timer that began it. */
  readonly chain: string;
  /** This firing: `<incarnation>.<n>`, unique in the incarnation. */
  readonly fire: string;
  /** Virtual time (ms) it fired. */
  readonly at: number;
  /** The delay of the timer that fired (a `setInterval`'s period), in ms. */
  readonly every: number;
}

/**
 * The shortest one-shot delay that starts a schedule. A shorter one set outside a schedule (a
 * `setTimeout(fn, 0)` or a debounce in a watch handler) defers a reaction to an event: what runs
 * then is that reaction, as it would be without the timer.
 * @internal
 */
export const SCHEDULE_MIN_MS = 1000;

/** What the async context knows: the run, and the hosted process, if the code is one's. @internal */
export interface HostStore {
  readonly scope: RunScope;
  readonly sandbox?: ProcessSandbox;
  /** The timer firing this code continues, if it continues one of the program's schedules. */
  readonly timer?: TimerCause;
  /**
   * The wake-up of code that awaits a sleep (`await setTimeout(ms)` of `timers/promises`, a promise
   * around a `setTimeout`): set on the sleeping code's context when it sets the timer, filled in
   * when the timer fires. Node resumes an awaiting function in the context it awaited in, not in
   * the timer's, so the firing cannot reach the code after the sleep through {@link timer}.
   */
  readonly wake?: { timer?: TimerCause };
  /**
   * The resourceVersions of the watch events this code answers: a hosted program's handler of a
   * watch event (and its continuations) runs in it, so its writes say what they react to (a
   * program has no reconciles whose notifications tell).
   */
  readonly answers?: readonly number[];
  /**
   * The code is a shared library's, started by its first evaluation (a firing of a timer its module
   * body set): its timers are not the program's (process-sandbox.ts).
   */
  readonly shared?: true;
}

/** The async context of runs and hosted processes (follows promises, timers and callbacks). @internal */
export const hostContext = new AsyncLocalStorage<HostStore>();

/** The schedule firing whose continuation is running, if any (see {@link TimerCause}). @internal */
export function currentTimerCause(): TimerCause | undefined {
  const s = hostContext.getStore();
  return s?.timer ?? s?.wake?.timer;
}

/** The resourceVersions of the watch events the running code answers, if it answers some (see {@link HostStore.answers}). @internal */
export function currentAnswers(): readonly number[] | undefined {
  return hostContext.getStore()?.answers;
}

/** The hosted process whose code is running, if any. @internal */
export function currentSandbox(): ProcessSandbox | undefined {
  return hostContext.getStore()?.sandbox;
}
