import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import { format } from 'node:util';
import { ProcessExitSignal } from './exit-signal.js';
import { hostContext, SCHEDULE_MIN_MS, type HostStore, type ProcessSandbox, type RunEscape, type RunScope, type TimerCause } from './host-context.js';
import { activateHostedGlobals, virtualTimers } from './hosted-globals.js';
import { cleanStack, describeThrown, setByModuleLoader } from './stack.js';
import { setVirtualFiles } from './virtual-files.js';

/** What a sandbox needs from the simulation: virtual time and the kernel's activity signal. @internal */
export interface SandboxClock {
  now(): number;
  /** Runs fn `ms` virtual ms from now; returns the cancel function. */
  after(ms: number, fn: () => void): () => void;
  /** Tells the kernel that code outside its tasks has work to do (keeps virtual time still). */
  activity(): void;
}

/** Options of {@link createSandbox}. @internal */
export interface SandboxOptions {
  scope: RunScope;
  clock: SandboxClock;
  /** Milliseconds since the epoch at virtual time 0 (`new Date()` in the program). */
  epochMs: number;
  env: Record<string, string | undefined>;
  argv: string[];
  /** A line the program printed (console.* or process.stdout/stderr). */
  onOutput(level: 'debug' | 'info' | 'warn' | 'error', message: string): void;
  /** The incarnation ended itself (exit, uncaught exception, unhandled rejection). */
  onDeath(escape: RunEscape): void;
  /** Which incarnation of its replica this is (1, 2, …): names its schedules in the trace. @defaultValue 1 */
  incarnation?: number;
  /**
   * Files only this incarnation sees (absolute path → contents): its reads of these exact paths
   * through `node:fs` are answered from memory, nothing is written to the disk (virtual-files.ts).
   */
  files?: Readonly<Record<string, string | Uint8Array>>;
  /** The actor its requests are recorded as: its global `fetch` calls to downstream services are this actor's. */
  actor?: string;
}

/** The longest line kept from a program's output (longer ones are cut). */
const MAX_LINE = 2_000;
/** Node's upper bound for timer delays (larger delays become 1 ms, as in Node). */
const TIMEOUT_MAX = 2 ** 31 - 1;
/** Ids of shared-library timers (see {@link Sandbox.setTimeout}) start above this: the program's own ids never reach it. */
const SHARED_IDS = 2 ** 30;

/** A running hosted incarnation: its sandbox, plus what its host needs. @internal */
export interface Sandbox extends ProcessSandbox {
  /** Runs fn as this incarnation's code (its timers, clocks, env and exits are the sandbox's). */
  run<T>(fn: () => T): T;
  /** Runs fn as {@link Sandbox.run} does, as a firing of the schedule `chain` (see TimerCause); the code waiting on `wake` continues it too. */
  runScheduled<T>(chain: string, fn: () => T, wake?: { timer?: TimerCause }, every?: number): T;
  /** The async context of this incarnation (for transports that call back into it). */
  readonly store: HostStore;
  /** The last line it printed, if any. */
  readonly lastOutput: string | undefined;
  /** Times it waited on the simulation: timers set, requests sent (see {@link Sandbox.noteWait}); a shared library's timers are not counted. */
  readonly waits: number;
  /** Counts a wait on the simulation the sandbox cannot see itself (a request to the simulated API). */
  noteWait(): void;
  /** Calls `fn` once, at the first wait on the simulation or when the incarnation ends (now, if that happened already). */
  onFirstWait(fn: () => void): void;
  /** Ends it from outside (crash fault, end of run): its timers never fire again. */
  kill(): void;
}

/**
 * Creates the sandbox of one incarnation of a hosted process: timers on the virtual clock
 * (`setTimeout`, `setInterval`, `setImmediate`, their `clear*`, `timers/promises`), `Date`,
 * `performance.now()` and `process.hrtime` on simulated time, its own `process.env`,
 * `process.argv` and virtual files ({@link SandboxOptions.files}), and its output captured.
 * The run guard's patched globals dispatch to it while its code runs (async context), and turn
 * its exits, uncaught exceptions and unhandled rejections into {@link SandboxOptions.onDeath}.
 * @internal
 */
export function createSandbox(o: SandboxOptions): Sandbox {
  activateHostedGlobals();
  let alive = true;
  let lastOutput: string | undefined;
  let nextId = 1;
  let nextSharedId = SHARED_IDS + 1;
  let fires = 0;
  const incarnation = o.incarnation ?? 1;
  const script = o.argv[1];
  const entry = script !== undefined && isAbsolute(script) ? { path: script, url: pathToFileURL(script).href } : undefined;
  /**
   * Whether a timer set now is a shared library's, not the program's: set by code the module
   * loader runs (a library's module body under `node_modules`, a loader hook: see
   * setByModuleLoader) or by a firing of such a timer. Libraries are evaluated once per process,
   * so only the first run in a process sets these: they neither count as the program waiting on
   * the simulation (which would end the load hold while the program is still importing: red team
   * round 9 CJS-1) nor take an id from the program's own sequence (its schedules are named by id).
   */
  const sharedTimer = (): boolean => hostContext.getStore()?.shared === true || setByModuleLoader(entry);
  /** The schedule a timer set now belongs to (see TimerCause), if any. */
  const scheduleOf = (id: number, ms: number, repeat: boolean): string | undefined => {
    const store = hostContext.getStore();
    return store?.timer?.chain ?? store?.wake?.timer?.chain ?? (repeat || ms >= SCHEDULE_MIN_MS ? `${incarnation}.${id}` : undefined);
  };
  /**
   * A one-shot timer of a schedule set outside a firing may be a sleep the calling code awaits:
   * the code from here on (the rest of this turn and what it awaits) carries a wake-up the timer's
   * firing fills in, so what it does after the sleep continues the schedule (see HostStore.wake).
   */
  const wakeFor = (schedule: string | undefined, repeat: boolean): { timer?: TimerCause } | undefined => {
    const store = hostContext.getStore();
    if (schedule === undefined || repeat || store === undefined || store.timer !== undefined) return undefined;
    const wake: { timer?: TimerCause } = {};
    hostContext.enterWith({ ...store, wake });
    return wake;
  };
  let waits = 0;
  let firstWait: (() => void)[] | undefined = [];
  const waited = (): void => {
    waits++;
    const fns = firstWait;
    firstWait = undefined;
    if (fns) for (const f of fns) f();
  };
  const startedAt = o.clock.now();
  /** Pending timers by id: cancel functions. */
  const timers = new Map<number, VirtualTimeout>();

  const sandbox: Sandbox = {
    ...(o.actor !== undefined ? { actor: o.actor } : {}),
    get alive() {
      return alive;
    },
    get lastOutput() {
      return lastOutput;
    },
    get waits() {
      return waits;
    },
    noteWait() {
      waited();
    },
    onFirstWait(fn) {
      if (firstWait === undefined) fn();
      else firstWait.push(fn);
    },
    env: o.env,
    argv: o.argv,
    store: undefined as unknown as HostStore,
    run: <T>(fn: () => T): T => hostContext.run(sandbox.store, fn),
    runScheduled<T>(chain: string, fn: () => T, wake?: { timer?: TimerCause }, every = 0): T {
      const timer: TimerCause = { chain, fire: `${incarnation}.${++fires}`, at: o.clock.now(), every };
      if (wake) wake.timer = timer;
      return hostContext.run({ scope: o.scope, sandbox, timer }, fn);
    },
    setTimeout(fn, ms, args, repeat) {
      const delay = delayOf(ms);
      if (sharedTimer()) return arm(new VirtualTimeout(nextSharedId++, delay, repeat, fn, args, sandbox, timers, o.clock, undefined, undefined, undefined, true));
      waited();
      const id = nextId++;
      const schedule = scheduleOf(id, delay, repeat);
      return arm(new VirtualTimeout(id, delay, repeat, fn, args, sandbox, timers, o.clock, schedule, wakeFor(schedule, repeat), schedule === undefined ? hostContext.getStore()?.answers : undefined));
    },
    setImmediate(fn, args) {
      if (sharedTimer()) return arm(new VirtualTimeout(nextSharedId++, 0, false, fn, args, sandbox, timers, o.clock, undefined, undefined, undefined, true));
      waited();
      const id = nextId++;
      const schedule = scheduleOf(id, 0, false);
      return arm(new VirtualTimeout(id, 0, false, fn, args, sandbox, timers, o.clock, schedule, undefined, schedule === undefined ? hostContext.getStore()?.answers : undefined));
    },
    clearTimer(timer) {
      const id = typeof timer === 'number' ? timer : typeof timer === 'string' && /^\d+$/.test(timer) ? Number(timer) : undefined;
      const t = id !== undefined ? timers.get(id) : timer instanceof VirtualTimeout ? timer : undefined;
      if (t === undefined) return false;
      t.close();
      return true;
    },
    epochMs: () => o.epochMs + o.clock.now(),
    uptimeMs: () => o.clock.now() - startedAt,
    log(level, args) {
      if (!alive) return;
      let message = format(...args);
      if (message.length > MAX_LINE) message = `${message.slice(0, MAX_LINE)}…`;
      for (const line of message.split('\n')) if (line.trim() !== '') lastOutput = line;
      o.onOutput(level, message);
    },
    die(escape) {
      if (!alive) return;
      stop();
      o.onDeath(escape);
    },
    kill() {
      if (alive) stop();
    },
  };
  (sandbox as { store: HostStore }).store = { scope: o.scope, sandbox };
  if (o.files !== undefined) setVirtualFiles(sandbox, o.files);

  function arm(t: VirtualTimeout): VirtualTimeout {
    timers.set(t.id, t);
    virtualTimers.set(t, () => t.close());
    t.arm();
    return t;
  }

  function stop(): void {
    alive = false;
    waited();
    for (const t of [...timers.values()]) t.close();
  }
  return sandbox;
}

/** `setTimeout`'s delay as Node coerces it: a number of whole ms in [1, 2^31-1], else 1. */
function delayOf(ms: unknown): number {
  const n = Number(ms);
  return n >= 1 && n <= TIMEOUT_MAX ? Math.trunc(n) : 1;
}

/**
 * A timer on the virtual clock with the surface of Node's `Timeout` (`ref`, `unref`, `hasRef`,
 * `refresh`, `close`, a numeric primitive), so code that stores, unrefs or clears it works.
 * Its callback runs as the incarnation's code; a throw ends the incarnation, as an uncaught
 * exception ends a process.
 */
class VirtualTimeout {
  private cancel: (() => void) | undefined;
  private refed = true;
  constructor(
    readonly id: number,
    private readonly ms: number,
    private readonly repeat: boolean,
    private readonly fn: (...args: unknown[]) => void,
    private readonly args: unknown[],
    private readonly sandbox: Sandbox,
    private readonly timers: Map<number, VirtualTimeout>,
    private readonly clock: SandboxClock,
    /** The program's schedule this timer belongs to, if any (see TimerCause). */
    private readonly schedule: string | undefined,
    /** The wake-up of the code that may await this timer (see HostStore.wake). */
    private readonly wake?: { timer?: TimerCause },
    /** The watch events the code that set this short timer answered: its callback (a deferred or queued reaction) answers them too. */
    private readonly answers?: readonly number[],
    /** A shared library's timer (see {@link createSandbox}): its callback is the library's code too, and so are the timers it sets. */
    private readonly shared = false,
  ) {}

  arm(): void {
    // a dead incarnation's timers never fire (its code may still run a continuation or two)
    if (this.sandbox.alive) this.cancel = this.clock.after(this.ms, () => this.fire());
  }

  private fire(): void {
    this.cancel = undefined;
    if (!this.sandbox.alive || !this.timers.has(this.id)) return;
    if (this.repeat) this.arm();
    else this.timers.delete(this.id);
    this.clock.activity();
    const body = (): void => {
      try {
        this.fn(...this.args);
      } catch (err) {
        if (err instanceof ProcessExitSignal) return;
        this.sandbox.die({ t: this.clock.now(), kind: 'uncaught', code: 1, message: describeThrown(err), ...(err instanceof Error && err.stack !== undefined ? { stack: cleanStack(err.stack)! } : {}), where: `a ${this.repeat ? 'setInterval' : this.ms === 0 ? 'setImmediate' : 'setTimeout'} callback` });
      }
    };
    if (this.shared) hostContext.run({ ...this.sandbox.store, shared: true }, body);
    else if (this.schedule !== undefined) this.sandbox.runScheduled(this.schedule, body, this.wake, this.ms);
    else if (this.answers !== undefined) hostContext.run({ ...this.sandbox.store, answers: this.answers }, body);
    else this.sandbox.run(body);
  }

  close(): this {
    this.cancel?.();
    this.cancel = undefined;
    this.timers.delete(this.id);
    return this;
  }

  refresh(): this {
    if (!this.timers.has(this.id)) return this;
    this.cancel?.();
    this.arm();
    return this;
  }

  ref(): this {
    this.refed = true;
    return this;
  }

  unref(): this {
    this.refed = false;
    return this;
  }

  hasRef(): boolean {
    return this.refed;
  }

  [Symbol.toPrimitive](): number {
    return this.id;
  }

  [Symbol.dispose](): void {
    this.close();
  }
}
