import { VirtualClock } from './clock.js';
import { Scheduler, type ScheduledEvent } from './scheduler.js';
import { realSetImmediate } from './globals.js';
import { inspectableThrown } from './thrown.js';

/**
 * One unit of user code the kernel drives (a reconcile, an environment actor's step). The kernel
 * only moves virtual time when every live task is parked on the simulation.
 * @internal
 */
export interface Task {
  readonly id: number;
  readonly label: string;
  readonly startedAt: number;
  /** Number of simulation promises this task is currently waiting on. */
  parked: number;
  /** Set when the task waited on something outside the simulation and was given up on. */
  abandoned: boolean;
}

/** Why the kernel gave up on a task. */
export interface BlockedTask {
  task: Task;
  /** Virtual time at which the task was found blocked. */
  at: number;
  /** `outside`: it waited on something outside the simulation; `loop`: it spun without ever yielding to it. @defaultValue 'outside' */
  reason?: 'outside' | 'loop';
}

/**
 * Instrumentation a host may set (the CLI's worker thread does): told the label of every task
 * the kernel starts, so a watchdog outside the thread can name the one that never returned.
 * @internal
 */
export const kernelHooks: {
  onTaskStart: ((label: string) => void) | undefined;
  /**
   * Called at the seams where user code hands control back to the kernel's own code (a task
   * settling, before the runtime's bookkeeping of it; the end of a drain that left tasks parked,
   * before the next event): the run guard puts back built-ins the code under test replaced
   * before the harness goes on under them (src/host/run-guard.ts). Called about twice per
   * reconcile: must be cheap.
   */
  userCodeReturned: (() => void) | undefined;
  /**
   * A promise that settles when a short real timer the run's code set (a yield to the event loop:
   * `setTimeout(r, 0)`, `setImmediate`) has fired, or undefined when none is pending (the run
   * guard's). Before it calls a task blocked, the kernel waits for such timers, each once, so
   * whether a yield resumes in time does not depend on the machine's load (red team H2b, stop 43).
   */
  soonRealTimer: (() => Promise<void> | undefined) | undefined;
} = { onTaskStart: undefined, userCodeReturned: undefined, soonRealTimer: undefined };

/** At most this many short real timers waited for per run: a reconcile polling the wall clock in a loop is still blocked. */
const SOON_WAITS_MAX = 1000;

export interface KernelOptions {
  /**
   * Host macrotasks to wait, with no progress at all, before a running task is declared blocked
   * on something outside the simulation.
   * @defaultValue 20
   */
  blockedAfterMacrotasks?: number;
  /** Called once per task that was declared blocked. */
  onBlocked?: (blocked: BlockedTask) => void;
  /**
   * Host macrotasks to wait with no external activity (see {@link Kernel.external}) before
   * virtual time may move on. The window is extended while real I/O requests (file system,
   * DNS, socket writes) are in flight in this thread (see {@link REAL_IO_WAIT_TURNS}).
   * @defaultValue 2
   */
  quietAfterMacrotasks?: number;
  /** The host's wall clock in ms (injected: the kernel never reads one). Without it the kernel never yields on its own. */
  wallClock?: () => number;
  /** With a wall clock: yield to the host event loop at least this often (wall ms). @defaultValue 50 */
  yieldEveryMs?: number;
}

/**
 * What a drain round awaits: one microtask turn, as `await undefined` takes, without a new
 * promise for every turn (awaiting a native promise uses it as it is).
 */
const SETTLED: Promise<void> = Promise.resolve();

/** Kernel events (or drain rounds) between two looks at the wall clock. */
const CLOCK_EVERY = 128;

/**
 * Host macrotasks waited at most, per quiet window and per run, for real I/O that code of the
 * simulation started (an `fs.promises.readFile` between two requests) before virtual time moves
 * on regardless: a request that never completes (a hung DNS lookup) must not stall every step.
 */
const REAL_IO_WAIT_TURNS = { window: 20_000, run: 200_000 };

/** libuv requests in flight, as `process.getActiveResourcesInfo` names them (handles such as sockets, pipes and timers are not requests). */
const REAL_REQUEST = /Req|^(ConnectWrap|WriteWrap|ShutdownWrap|SendWrap)$/;

function realRequestsInFlight(): boolean {
  for (const r of process.getActiveResourcesInfo()) if (REAL_REQUEST.test(r)) return true;
  return false;
}

/**
 * The discrete-event kernel: a virtual clock, an event queue and the bookkeeping that lets async
 * user code run deterministically. Reconcilers await promises the simulation resolves (store
 * calls resolve at once; sleeps and downstream latency resolve from scheduled events), so the
 * kernel drains microtasks after each event and falls back to a host macrotask only when nothing
 * progresses. This is what lets one process run about a million steps per second.
 * @internal
 */
export class Kernel {
  readonly clock = new VirtualClock();
  readonly scheduler = new Scheduler();
  /**
   * Live tasks in start order. An array, not a Set: a hash set that keeps emptying (one
   * reconcile at a time) reallocates its table on every delete.
   */
  private readonly live: Task[] = [];
  private nextTaskId = 1;
  private progress = 0;
  private readonly blockedAfter: number;
  /** Called once per task declared blocked. */
  onBlocked: ((b: BlockedTask) => void) | undefined;
  private stopped = false;
  /** Events executed so far (a cheap measure of work done). */
  steps = 0;
  /**
   * Stop after this many events: a loop that never lets virtual time advance (a requeue with
   * no delay that always fires again) must end the run, not hang it.
   */
  maxSteps = Number.POSITIVE_INFINITY;
  /** Short real timers waited for so far ({@link kernelHooks}.soonRealTimer). */
  private soonWaits = 0;
  /** Set when the run stopped because maxSteps was reached. */
  exhausted = false;
  /**
   * The host's wall clock (ms). With one, the run loop gives the host event loop a macrotask at
   * least every `yieldEveryMs`, so test-runner timeouts, progress output and Ctrl-C work while a
   * long run is in progress; virtual time and the trace are unaffected.
   */
  wallClock: (() => number) | undefined;
  yieldEveryMs: number;
  /** Called after each host yield; returning true ends the run at once ({@link interrupted}). */
  onYield: (() => boolean | void) | undefined;
  /** Set when `onYield` asked the run to stop (a wall-clock budget ran out): the run is incomplete. */
  interrupted = false;
  /** Host yields so far. */
  yields = 0;
  /**
   * Bumped every time the kernel's own code gets to run between user callbacks: a guard counting
   * microtasks or ticks scheduled since the last turn sees code that never lets the kernel in.
   */
  turns = 0;
  private lastYield = 0;
  private sinceClock = 0;

  constructor(options: KernelOptions = {}) {
    this.blockedAfter = options.blockedAfterMacrotasks ?? 20;
    this.onBlocked = options.onBlocked;
    this.quietAfter = options.quietAfterMacrotasks ?? 2;
    this.wallClock = options.wallClock;
    this.yieldEveryMs = options.yieldEveryMs ?? 50;
  }

  /** Whether to look at the wall clock now (every CLOCK_EVERY turns): synchronous, so a turn costs no await. */
  private clockDue(): boolean {
    return this.wallClock !== undefined && ++this.sinceClock >= CLOCK_EVERY;
  }

  /**
   * Gives the host a macrotask when `yieldEveryMs` of wall time passed since the last one (call
   * it when {@link clockDue}). Returns true when the run must stop (interrupted).
   */
  private async maybeYield(): Promise<boolean> {
    const clock = this.wallClock;
    if (clock === undefined) return false;
    this.sinceClock = 0;
    const now = clock();
    if (this.lastYield === 0) this.lastYield = now;
    if (now - this.lastYield < this.yieldEveryMs) return false;
    await new Promise<void>((r) => realSetImmediate(r));
    this.yields++;
    this.lastYield = clock();
    if (this.onYield?.() === true) {
      this.interrupted = true;
      this.stopped = true;
      return true;
    }
    return false;
  }

  /** Bumped by {@link external}; `quietAt` is the value last seen followed by a quiet window. */
  private externalSeq = 0;
  private quietAt = 0;
  private readonly quietAfter: number;
  /** Macrotasks waited for real I/O so far (bounded per run). */
  private ioTurns = 0;

  /**
   * Marks activity of code the kernel does not drive as tasks: a real HTTP client served
   * in-process (msw), whose continuations run on host macrotasks. Before moving virtual time the
   * kernel then yields host macrotasks until none brings new activity for
   * `quietAfterMacrotasks`, so that code's reaction happens at the current virtual time.
   */
  external(): void {
    this.externalSeq++;
    this.progress++;
  }

  now(): number {
    return this.clock.now();
  }

  /** Runs fn at virtual time `at` (or now, if `at` is in the past). */
  at(at: number, fn: () => void): ScheduledEvent {
    const now = this.clock.now();
    return this.scheduler.schedule(at < now ? now : at, fn);
  }

  /** Runs fn `ms` virtual milliseconds from now. */
  after(ms: number, fn: () => void): ScheduledEvent {
    return this.scheduler.schedule(this.clock.now() + (ms > 0 ? ms : 0), fn);
  }

  /** Promises virtual time waits for (see {@link hold}). */
  private readonly holds = new Set<Promise<void>>();

  /**
   * Keeps virtual time still until `until` settles: for real work the simulation must not
   * outrun, such as a hosted program's module being loaded (the loader's I/O is real). The
   * kernel waits without spinning, so the work gets the CPU.
   */
  hold(until: Promise<unknown>): void {
    const h: Promise<void> = until.then(
      () => undefined,
      () => undefined,
    );
    this.holds.add(h);
    void h.then(() => {
      this.holds.delete(h);
      this.external();
    });
  }

  /** Marks that user code made progress (called by every simulation API). */
  touch(): void {
    this.progress++;
  }

  /**
   * Starts `body` as a task. `onSettled` runs when it finishes (with the error it threw, if
   * any, or the value its promise resolved to), unless the task was abandoned before that.
   */
  spawn<T>(label: string, body: (task: Task) => Promise<T>, onSettled: (error: unknown, failed: boolean, value?: T) => void): Task {
    const task: Task = { id: this.nextTaskId++, label, startedAt: this.clock.now(), parked: 0, abandoned: false };
    kernelHooks.onTaskStart?.(label);
    this.live.push(task);
    this.progress++;
    let p: Promise<T>;
    try {
      p = body(task);
    } catch (err) {
      kernelHooks.userCodeReturned?.();
      this.removeLive(task);
      onSettled(inspectableThrown(err), true);
      return task;
    }
    // no look when the body returns its promise: what runs before the task settles or parks is
    // the rest of the event that started it (checking here too costs a third more per reconcile)
    p.then(
      (value) => {
        kernelHooks.userCodeReturned?.();
        if (task.abandoned) return;
        this.removeLive(task);
        this.progress++;
        onSettled(undefined, false, value);
      },
      (err: unknown) => {
        kernelHooks.userCodeReturned?.();
        if (task.abandoned) return;
        this.removeLive(task);
        this.progress++;
        onSettled(inspectableThrown(err), true);
      },
    );
    return task;
  }

  /**
   * A promise the simulation resolves: the task counts as parked until `register`'s callback
   * fires. Use for sleeps, downstream latency, anything resolved by a scheduled event.
   */
  park<T>(task: Task | undefined, register: (resolve: (v: T) => void, reject: (e: unknown) => void) => void): Promise<T> {
    if (task) task.parked++;
    else this.anonymousParked++;
    this.progress++;
    return new Promise<T>((resolve, reject) => {
      let done = false;
      register(
        (v) => {
          if (done) return;
          done = true;
          if (task) task.parked--;
          else this.anonymousParked--;
          this.progress++;
          resolve(v);
        },
        (e) => {
          if (done) return;
          done = true;
          if (task) task.parked--;
          else this.anonymousParked--;
          this.progress++;
          reject(e);
        },
      );
    });
  }

  /** Sleeps `ms` of virtual time. */
  sleep(task: Task | undefined, ms: number): Promise<void> {
    return this.park<void>(task, (resolve) => {
      this.after(ms, () => resolve());
    });
  }

  /** Stops the run loop after the current event. */
  stop(): void {
    this.stopped = true;
  }

  /** Tasks started and not yet finished (including parked ones). */
  liveTasks(): Task[] {
    return this.live.slice();
  }

  /** Whether `task` was started and has not finished (nor been abandoned). */
  isLive(task: Task): boolean {
    return this.live.includes(task);
  }

  /** Live tasks not parked on the simulation: the code running now is one of them. */
  runnable(): Task[] {
    const out: Task[] = [];
    for (const t of this.live) if (t.parked <= 0) out.push(t);
    return out;
  }

  /** Parks not tied to a task (e.g. a global `fetch` patched during a run). */
  private anonymousParked = 0;

  /** Removes a finished or abandoned task, keeping the others in start order. */
  private removeLive(task: Task): void {
    const live = this.live;
    const i = live.indexOf(task);
    if (i < 0) return;
    for (let j = i + 1; j < live.length; j++) live[j - 1] = live[j]!;
    live.pop();
  }

  private hasRunnable(): boolean {
    let n = 0;
    for (const t of this.live) if (t.parked <= 0) n++;
    return n > this.anonymousParked;
  }

  /**
   * Yields host macrotasks until a window of `quietAfter` passes with no external activity.
   * Returns false when a task became runnable first (drain it, then come back).
   */
  private async quiesce(): Promise<boolean> {
    let seen = this.externalSeq;
    let idle = 0;
    let ioTurns = 0;
    for (;;) {
      await new Promise<void>((r) => realSetImmediate(r));
      if (this.externalSeq !== seen) {
        seen = this.externalSeq;
        idle = 0;
      } else idle++;
      if (this.live.length > 0 && this.hasRunnable()) return false;
      if (idle < this.quietAfter) continue;
      // quiet, unless real I/O of the simulated code may still answer at this virtual time
      if (ioTurns >= REAL_IO_WAIT_TURNS.window || this.ioTurns >= REAL_IO_WAIT_TURNS.run || !realRequestsInFlight()) break;
      ioTurns++;
      this.ioTurns++;
      idle = this.quietAfter - 1;
    }
    this.quietAt = seen;
    return true;
  }

  private abandonRunnable(): void {
    this.abandonRunning('outside');
  }

  /** Gives up on every task not parked on the simulation (the code running now is one of them). */
  abandonRunning(reason: 'outside' | 'loop'): void {
    for (const task of this.live.slice()) {
      if (task.parked > 0) continue;
      task.abandoned = true;
      this.removeLive(task);
      this.onBlocked?.({ task, at: this.clock.now(), reason });
    }
  }

  /** Runs events until virtual time passes `untilMs` or nothing is left to do. */
  async run(untilMs: number): Promise<void> {
    this.stopped = false;
    for (;;) {
      this.turns++;
      if (this.live.length > 0 && this.hasRunnable()) {
        // Drain user code: yield microtasks while some live task is not parked. Fall back to
        // host macrotasks when microtasks make no progress, and declare tasks blocked when even
        // those do not help. Inline, not an async helper: a promise and an await less per event.
        let idleMicro = 0;
        let idleMacro = 0;
        let last = this.progress;
        while (this.live.length > 0 && this.hasRunnable()) {
          if (this.clockDue() && (await this.maybeYield())) return;
          if (idleMicro < 64) {
            await SETTLED;
          } else {
            await new Promise<void>((r) => realSetImmediate(r));
            idleMacro++;
          }
          this.turns++;
          if (this.progress !== last) {
            last = this.progress;
            idleMicro = 0;
            idleMacro = 0;
          } else {
            idleMicro++;
            if (idleMacro >= this.blockedAfter) {
              // a short real timer of the run's code still to fire: a yield, waited for until it fires
              const soon = this.soonWaits < SOON_WAITS_MAX ? kernelHooks.soonRealTimer?.() : undefined;
              if (soon !== undefined) {
                this.soonWaits++;
                await soon;
                idleMicro = 0;
                idleMacro = 0;
                continue;
              }
              this.abandonRunnable();
              idleMicro = 0;
              idleMacro = 0;
            }
          }
        }
        // a task still live parked after running (a settled one was checked as it settled)
        if (this.live.length > 0) kernelHooks.userCodeReturned?.();
      }
      if (this.clockDue() && (await this.maybeYield())) return;
      if (this.externalSeq !== this.quietAt && !(await this.quiesce())) continue;
      if (this.holds.size > 0) {
        await Promise.race(this.holds);
        continue;
      }
      if (this.stopped) return;
      const next = this.scheduler.peekTime();
      if (next === undefined || next > untilMs) break;
      if (this.steps >= this.maxSteps) {
        this.exhausted = true;
        return;
      }
      const ev = this.scheduler.pop()!;
      this.clock.advanceTo(ev.at);
      this.steps++;
      ev.fn();
    }
    this.clock.advanceTo(untilMs);
  }
}
