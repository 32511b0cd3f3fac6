import type { Kernel } from '../sim/kernel.js';
import { harnessReplaced } from '../host/intrinsics.js';

/**
 * The in-thread guard against code that never yields to the simulation (issue 17 item 6). A
 * reconcile spinning on `await Promise.resolve()`, a recursive `process.nextTick` or
 * `queueMicrotask` chain, or such a chain left running after the reconcile returned, keeps the
 * thread's microtask (or tick) queue from ever draining: the kernel never gets a turn again, the
 * run never ends, and the caller (a vitest test, the CLI) starves with it. JavaScript cannot
 * preempt such a chain, but every link of one calls a global: while a run lives this guard
 * counts those calls since the kernel's last turn and, past a budget, refuses them (the tick is
 * dropped; `Promise.resolve` returns a promise that never settles), which ends the chain, and
 * tells the run what looped. After the run, chains it started are cut once they run deep.
 *
 * What it cannot see: a loop on `await null` (no call to intercept) and a synchronous loop. The
 * CLI runs checks in a worker thread under a wall-clock watchdog for those.
 * @internal
 */

/** How a loop kept the kernel out. @internal */
export type LoopVia = 'Promise.resolve' | 'process.nextTick' | 'queueMicrotask';

/** Calls of one kind in a row with no kernel turn before the guard calls it a loop. A chain this long does nothing a simulation could see. */
export const LOOP_BUDGET = 200_000;
/** After its run ended, a chain that run started is cut at this depth. */
const DETACHED_DEPTH = 1_000;

interface Guarded {
  kernel: Kernel;
  /** The code running now, in words (the task not parked on the simulation). */
  caller: () => string | undefined;
  onLoop: (loop: FoundLoop) => void;
  /** Callbacks scheduled while this run was the innermost one that have not run yet. */
  pending: number;
  /** A loop was reported for this run (once). */
  reported: boolean;
}

/** A loop the guard stopped. @internal */
export interface FoundLoop {
  via: LoopVia;
  calls: number;
  /** Who started it: the task running when its first link was scheduled, or the one running now. */
  origin: string | undefined;
}

type Tick = (callback: (...args: unknown[]) => void, ...args: unknown[]) => void;
type Queue = (callback: () => void) => void;
type Resolve = <T>(this: PromiseConstructor, value?: T) => Promise<Awaited<T>>;

interface Saved {
  resolve: Resolve;
  /** Undoes the accessor on `process.nextTick` and `queueMicrotask`. */
  unpatch: (() => void)[];
}

const hostProcess = (globalThis as { process?: { nextTick?: Tick } }).process;
let active: Guarded[] = [];
let saved: Saved | undefined;
/** Callbacks wrapped by the guard that have not run yet. */
let pending = 0;
/** Depth of the wrapped callback running now (0: none), and who scheduled its chain's first link. */
let depth = 0;
let origin: string | undefined;
let lastTurns = -1;
let lastKernel: Kernel | undefined;
let calls = 0;

/**
 * True when this call must be refused: the kernel has had no turn for LOOP_BUDGET calls. Only
 * that one call is refused (the link a looping chain was about to add, which ends it); the count
 * starts again, so other code calling the same global right after is not hurt.
 */
function storm(via: LoopVia): boolean {
  const g = active[active.length - 1];
  if (!g) return false;
  if (g.kernel !== lastKernel || g.kernel.turns !== lastTurns) {
    lastKernel = g.kernel;
    lastTurns = g.kernel.turns;
    calls = 0;
    return false;
  }
  if (++calls < LOOP_BUDGET) return false;
  const found = calls;
  calls = 0;
  if (!g.reported) {
    g.reported = true;
    g.onLoop({ via, calls: found, origin: origin ?? g.caller() });
  }
  return true;
}

function wrap<A extends unknown[]>(callback: (...args: A) => void): (...args: A) => void {
  const mine = depth + 1;
  const g = active[active.length - 1];
  const from = depth > 0 ? origin : g?.caller();
  pending++;
  if (g) g.pending++;
  return (...args: A) => {
    pending--;
    if (g) g.pending--;
    const outer = [depth, origin] as const;
    depth = mine;
    origin = from;
    try {
      callback(...args);
    } finally {
      [depth, origin] = outer;
      if (active.length === 0 && pending === 0) restore();
    }
  };
}

/** After every run ended: chains the runs started are cut once deep; everything else passes. */
function detachedCut(): boolean {
  return active.length === 0 && depth >= DETACHED_DEPTH;
}

/**
 * Puts a guarded function in place of `owner[key]` as an accessor: code that assigns the
 * property while the guard is on (vitest swaps process.nextTick around its RPC calls and puts
 * it back a tick later) changes what the guard calls through, not the guard itself.
 */
function patch<F extends (...args: never[]) => unknown>(owner: object, key: string, guarded: (through: () => F) => F): (() => void) | undefined {
  const o = owner as Record<string, unknown>;
  if (typeof o[key] !== 'function') return undefined;
  let underlying = o[key] as F;
  const fn = guarded(() => underlying);
  const before = Object.getOwnPropertyDescriptor(owner, key);
  Object.defineProperty(owner, key, {
    configurable: true,
    enumerable: before?.enumerable ?? true,
    get: () => fn,
    set: (v: F) => {
      if (v !== fn) underlying = v;
    },
  });
  return () => Object.defineProperty(owner, key, { configurable: true, enumerable: before?.enumerable ?? true, writable: true, value: underlying });
}

function install(): void {
  if (saved) return;
  const unpatch: (() => void)[] = [];
  if (hostProcess) {
    const undo = patch<Tick>(hostProcess, 'nextTick', (through) =>
      function guardedNextTick(callback: (...args: unknown[]) => void, ...args: unknown[]): void {
        if (typeof callback !== 'function') return through().call(hostProcess, callback, ...args);
        if (storm('process.nextTick') || detachedCut()) return;
        through().call(hostProcess, wrap(callback), ...args);
      },
    );
    if (undo) unpatch.push(undo);
  }
  const undoQueue = patch<Queue>(globalThis, 'queueMicrotask', (through) =>
    function guardedQueueMicrotask(callback: () => void): void {
      if (typeof callback !== 'function') return through()(callback);
      if (storm('queueMicrotask') || detachedCut()) return;
      through()(wrap(callback));
    },
  );
  if (undoQueue) unpatch.push(undoQueue);
  const resolve = Promise.resolve as Resolve;
  saved = { resolve, unpatch };
  Promise.resolve = function guardedResolve<T>(this: PromiseConstructor, value?: T): Promise<Awaited<T>> {
    if (storm('Promise.resolve')) return new Promise<Awaited<T>>(() => undefined);
    return resolve.call(this, value) as Promise<Awaited<T>>;
  } as typeof Promise.resolve;
  harnessReplaced(Promise, 'resolve');
}

function restore(): void {
  if (!saved) return;
  for (const u of saved.unpatch) u();
  Promise.resolve = saved.resolve as typeof Promise.resolve;
  harnessReplaced(Promise, 'resolve');
  saved = undefined;
}

/**
 * Guards one run. `onLoop` is told once per loop found (with the way it kept the kernel out);
 * it should record the loop and give up on the running tasks. Returns the release function:
 * the globals are restored as soon as no callback the guard wrapped is still queued.
 * @internal
 */
export function guardLoops(kernel: Kernel, caller: () => string | undefined, onLoop: (loop: FoundLoop) => void): LoopGuard {
  install();
  const g: Guarded = { kernel, caller, onLoop, pending: 0, reported: false };
  active.push(g);
  return {
    pending: () => g.pending > 0,
    release: () => {
      active = active.filter((x) => x !== g);
      if (active.length === 0 && pending === 0) restore();
    },
  };
}

/** One run's guard. @internal */
export interface LoopGuard {
  /**
   * Whether ticks or microtasks the run scheduled have not run yet. A run whose microtasks never
   * let the tick queue drain finishes before they run: the harness then gives them a macrotask
   * before the run ends, so a chain left running is caught (and blamed) in the run that started it.
   */
  pending(): boolean;
  /** Ends the guard of this run; the globals are restored once no wrapped callback is queued. */
  release(): void;
}
