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
  /** The accessors on `process.nextTick` and `queueMicrotask` now installed. */
  unpatch: GuardedGlobal[];
}

/** `[first, ...rest]` without the array iterator. */
function withFirst(first: unknown, rest: unknown[]): unknown[] {
  const out: unknown[] = [first];
  for (let i = 0; i < rest.length; i++) out[i + 1] = rest[i];
  return out;
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
    const outerDepth = depth;
    const outerOrigin = origin;
    depth = mine;
    origin = from;
    // no spread, no destructuring, no .call: this runs right after code that may have replaced
    // the array iterator or Function.prototype.call (the run guard puts them back at its seams)
    try {
      apply(callback, undefined, args);
    } finally {
      depth = outerDepth;
      origin = outerOrigin;
      if (active.length === 0 && pending === 0) restore();
    }
  };
}

/** After every run ended: chains the runs started are cut once deep; everything else passes. */
function detachedCut(): boolean {
  return active.length === 0 && depth >= DETACHED_DEPTH;
}

/**
 * One global the loop guard stands in front of: `owner[key]` becomes an accessor whose getter
 * gives the guarded function, so code that assigns the property while the guard is on (vitest
 * swaps process.nextTick around its RPC calls and puts it back a tick later) changes what the
 * guard calls through, not the guard itself. Made once per global (its functions, accessor
 * included, are kept across runs: a run pays only for the two property definitions).
 */
class Patched<F extends (...args: never[]) => unknown> {
  /** What the guarded function calls through: the original, or what was assigned while patched. */
  underlying: F | undefined;
  private original: F | undefined;
  private enumerable = true;
  private readonly accessor: PropertyDescriptor;
  constructor(
    private readonly owner: object,
    private readonly key: string,
    readonly name: string,
    private readonly guarded: F,
  ) {
    const self = this;
    this.accessor = {
      configurable: true,
      get() {
        return guarded;
      },
      set(v: F) {
        if (v !== guarded) self.underlying = v;
      },
    };
  }
  /** Stands in front of the global; false when it is not a function (nothing to guard). */
  install(): boolean {
    const o = this.owner as Record<string, unknown>;
    const current = o[this.key];
    if (typeof current !== 'function') return false;
    // the guarded function itself, put back as a plain value by code that kept it during an earlier
    // run (a check a timed-out test left running): calling through to it would recurse forever
    if (current !== this.guarded) this.underlying = current as F;
    else if (this.underlying === undefined) return false;
    this.original = this.underlying;
    this.enumerable = Object.getOwnPropertyDescriptor(this.owner, this.key)?.enumerable ?? true;
    this.accessor.enumerable = this.enumerable;
    Object.defineProperty(this.owner, this.key, this.accessor);
    return true;
  }
  undo(): void {
    // `underlying` stays: a guarded function someone kept calls through to it after the run too
    Object.defineProperty(this.owner, this.key, { configurable: true, enumerable: this.enumerable, writable: true, value: this.underlying });
  }
  /**
   * Puts the function back if something other than the guard replaced it; whether it did.
   * vitest's swap puts its own saved original (the same function) in place a tick later:
   * anything else still in place when a run ends is the code under test's.
   */
  putBack(): boolean {
    if (this.underlying === this.original) return false;
    this.underlying = this.original;
    return true;
  }
}

/** Captured when this module loads: the code under test may replace Function.prototype.call. */
const apply = Reflect.apply;

/** A guarded global, whatever its function type. */
interface GuardedGlobal {
  readonly name: string;
  undo(): void;
  putBack(): boolean;
}

const nextTickGlobal: Patched<Tick> | undefined = hostProcess
  ? new Patched<Tick>(hostProcess, 'nextTick', 'process.nextTick', function guardedNextTick(callback: (...args: unknown[]) => void, ...args: unknown[]): void {
      const through = nextTickGlobal!.underlying!;
      if (typeof callback !== 'function') return apply(through, hostProcess, withFirst(callback, args));
      if (storm('process.nextTick') || detachedCut()) return;
      apply(through, hostProcess, withFirst(wrap(callback), args));
    })
  : undefined;
const queueMicrotaskGlobal = new Patched<Queue>(globalThis, 'queueMicrotask', 'globalThis.queueMicrotask', function guardedQueueMicrotask(callback: () => void): void {
  const through = queueMicrotaskGlobal.underlying!;
  if (typeof callback !== 'function') return through(callback);
  if (storm('queueMicrotask') || detachedCut()) return;
  through(wrap(callback));
});

/** The Promise.resolve the guard stands in front of while installed. */
let underlyingResolve: Resolve | undefined;
const guardedResolve = function guardedResolve<T>(this: PromiseConstructor, value?: T): Promise<Awaited<T>> {
  if (storm('Promise.resolve')) return new Promise<Awaited<T>>(() => undefined);
  return apply(underlyingResolve!, this, [value]) as Promise<Awaited<T>>;
} as typeof Promise.resolve;

function install(): void {
  if (saved) return;
  const unpatch: GuardedGlobal[] = [];
  if (nextTickGlobal?.install()) unpatch[unpatch.length] = nextTickGlobal;
  if (queueMicrotaskGlobal.install()) unpatch[unpatch.length] = queueMicrotaskGlobal;
  // as Patched.install: the guard itself, kept and put back by someone, must never be what it calls through
  const resolve = Promise.resolve === guardedResolve && underlyingResolve !== undefined ? underlyingResolve : (Promise.resolve as Resolve);
  saved = { resolve, unpatch };
  underlyingResolve = resolve;
  Promise.resolve = guardedResolve;
  harnessReplaced(Promise, 'resolve');
}

function restore(): void {
  if (!saved) return;
  for (let i = 0; i < saved.unpatch.length; i++) saved.unpatch[i]!.undo();
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
      const replaced: string[] = [];
      if (saved) for (let i = 0; i < saved.unpatch.length; i++) if (saved.unpatch[i]!.putBack()) replaced[replaced.length] = saved.unpatch[i]!.name;
      active = active.filter((x) => x !== g);
      if (active.length === 0 && pending === 0) restore();
      return replaced;
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
  /**
   * Ends the guard of this run; the globals are restored once no wrapped callback is queued.
   * Returns the globals the code under test replaced while the guard stood in front of them
   * (`queueMicrotask`), put back now.
   */
  release(): string[];
}
