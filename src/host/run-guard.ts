import { ProcessExitSignal, exitCodeOf, selfSignal } from './exit-signal.js';
import { hostContext, SOON_MS, type HostStore, type RunEscape, type RunScope } from './host-context.js';
import { cleanStack, describeThrown, firstUserFrame, stackHere } from './stack.js';
import { installHostedGlobals } from './hosted-globals.js';
import { originals } from './originals.js';
import { inspectableThrown } from '../sim/thrown.js';
import { kernelHooks } from '../sim/kernel.js';
import { guardIntrinsics, setCurrentIntrinsicsGuard, type IntrinsicsGuard } from './intrinsics.js';

/**
 * The run guard: one mechanism, installed when a run starts and always restored when the last
 * run ends (also after a failure), that keeps the code under test from ending or outliving the
 * harness. While installed:
 *
 * - `process.exit(n)`, `process.abort()` and `process.kill(process.pid, signal)` never end the host: in a hosted program they end
 *   that incarnation (the process restarts), anywhere else in a run they are recorded as an
 *   escape of the run. Either way the caller's code stops (a {@link ProcessExitSignal} unwinds it).
 * - an uncaught exception or an unhandled rejection is recorded the same way, with its stack,
 *   instead of reaching vitest's or Node's handlers (which would kill or fail the host).
 * - real timers (`setTimeout`, `setInterval`, `setImmediate`) created by a run's code are
 *   counted, their callbacks' throws recorded, and those still pending when the run ends are
 *   cleared then: nothing keeps ticking after a check. In a hosted program they are virtual.
 * - built-ins the harness runs on (`Math.max`, `JSON.stringify`, `Array.prototype.sort`,
 *   `Object.prototype.then`, …) are compared with their state when the guard was installed at
 *   every seam where the code under test hands control back to the kernel, and put back there:
 *   the harness never goes on under a built-in the code under test replaced, and each run that
 *   replaced one records it as an escape (`replaced-builtin`), which fails it (`never-exits`).
 *   What a module installs when it is imported, before the run, is part of it and stays.
 *
 * Which run (and which hosted process) a call belongs to comes from the async context
 * ({@link hostContext}), which follows promises, timers and event callbacks.
 * @internal
 */

/** At most this many escapes are kept per run (a throwing interval would otherwise fill memory). */
const MAX_ESCAPES = 10;

const scopes = new Set<RunScope>();
let nextScopeId = 1;
let restore: (() => void) | undefined;

type TimerKind = 'timeout' | 'interval' | 'immediate';
/** Node's own ends of `process.exit` and `process.kill`, reachable by any code. */
interface Internals {
  reallyExit: (code?: unknown) => never;
  _kill: (pid: number, signal: number) => unknown;
}
type AnyFn = (...args: unknown[]) => unknown;

/**
 * Runs `body` as one run under the guard: `now` stamps what the guard records with virtual time.
 * The guard is installed on entry (if no other run holds it) and restored when the last run
 * leaves, whatever `body` does.
 * @internal
 */
export async function guardRun<T>(now: () => number, body: (scope: RunScope) => Promise<T>, options: { hosted: boolean }): Promise<T> {
  const scope: RunScope = { id: nextScopeId++, now, escapes: [], realTimers: { setTimeout: 0, setInterval: 0, setImmediate: 0, clearedAtEnd: 0 }, pending: new Map(), soon: new Map(), hosted: options.hosted };
  enter(scope);
  try {
    // The async context costs every promise a hook (a third of the native runtime's speed), so
    // only runs that host programs (which need their processes told apart) get one; a native
    // run's code is whatever runs while it is the only run.
    return await (options.hosted ? hostContext.run({ scope }, () => body(scope)) : body(scope));
  } finally {
    // Node looks for unhandled rejections only when the microtask queue runs dry, which a run that
    // never waited on a macrotask has not let happen yet: one turn of the event loop, still guarded
    await new Promise<void>((resolve) => originals.setImmediate(resolve));
    leave(scope);
  }
}

/** The run a call belongs to: its async context's, or (no context) the only run going on. */
function scopeOf(store: HostStore | undefined): RunScope | undefined {
  if (store !== undefined) return scopes.has(store.scope) ? store.scope : undefined;
  if (scopes.size !== 1) return undefined;
  const [only] = scopes;
  return only!.hosted ? undefined : only;
}

/** Whether some run holds the guard. @internal */
export function guardInstalled(): boolean {
  return restore !== undefined;
}

function enter(scope: RunScope): void {
  scopes.add(scope);
  if (restore === undefined) restore = install();
}

/**
 * The built-ins as they were when the guard was last installed: kept across runs (compiling the
 * quick check costs more than a run's worth of checks) and taken again only when something
 * outside a run changed them (a polyfill a later import installed, a test's spy).
 */
let intrinsics: IntrinsicsGuard | undefined;
/**
 * The guard taken before {@link intrinsics}, kept too: the determinism self-check's host probe
 * replaces Math.random and the clocks around its re-run (outside the run), and puts them back
 * after it, so the built-ins alternate between two states; a guard that verifies against what
 * is there now is the one a new snapshot would give, and compiling one costs more than a run.
 */
let otherIntrinsics: IntrinsicsGuard | undefined;

/** Puts back the built-ins the code under test replaced, and records that in the runs it belongs to. */
function putBackIntrinsics(guard: IntrinsicsGuard, store: HostStore | undefined, only?: RunScope): void {
  const changed = guard.restore();
  if (changed.length === 0) return;
  const escape: Omit<RunEscape, 't'> = { kind: 'replaced-builtin', code: 1, message: changed.join(', ') };
  if (only !== undefined) recordEscape(only, escape);
  else for (const s of scopesOf(store)) recordEscape(s, escape);
}

/** The timer globals as the guard set them (the code under test must not replace them either). */
let ours: Record<string, unknown> = {};

function leave(scope: RunScope): void {
  // what the run's code replaced after its last task returned (a timer, a late microtask)
  if (intrinsics !== undefined && !intrinsics.verify()) putBackIntrinsics(intrinsics, undefined, scope);
  const g = globalThis as unknown as Record<string, unknown>;
  const timers: string[] = [];
  for (const name in ours) {
    if (g[name] === ours[name]) continue;
    timers[timers.length] = `globalThis.${name}`;
    g[name] = ours[name];
  }
  if (timers.length > 0) recordEscape(scope, { kind: 'replaced-builtin', code: 1, message: timers.join(', ') });
  const clear = previous;
  for (const [timer, kind] of scope.pending) {
    scope.realTimers.clearedAtEnd++;
    if (kind === 'immediate') clear.clearImmediate(timer as NodeJS.Immediate);
    else clear.clearTimeout(timer as NodeJS.Timeout);
  }
  scope.pending.clear();
  for (const done of scope.soon.values()) done();
  scope.soon.clear();
  scopes.delete(scope);
  // no hosted run left: turn the async context (and its promise hook) off again
  if (scope.hosted && ![...scopes].some((s) => s.hosted)) hostContext.disable();
  if (scopes.size === 0 && restore !== undefined) {
    const r = restore;
    restore = undefined;
    r();
  }
}

/** Records an escape in a run (up to {@link MAX_ESCAPES}). @internal */
export function recordEscape(scope: RunScope, escape: Omit<RunEscape, 't'>): void {
  if (scope.escapes.length >= MAX_ESCAPES) return;
  scope.escapes.push({ t: scope.now(), ...escape });
}

/** The runs a call without a hosted process belongs to: its own, or (no context) every active run. */
function scopesOf(store: HostStore | undefined): RunScope[] {
  if (store !== undefined) return scopes.has(store.scope) ? [store.scope] : [];
  return [...scopes];
}

/** The globals the guard replaces, as they are now (a user's, vitest's or the CLI's). */
function currentGlobals() {
  return {
    exit: process.exit,
    abort: process.abort,
    kill: process.kill,
    // what process.exit and process.kill end in: callable directly, and Node does not stop it
    reallyExit: (process as unknown as Internals).reallyExit,
    rawKill: (process as unknown as Internals)._kill,
    setTimeout: globalThis.setTimeout,
    setInterval: globalThis.setInterval,
    setImmediate: globalThis.setImmediate,
    clearTimeout: globalThis.clearTimeout,
    clearInterval: globalThis.clearInterval,
    clearImmediate: globalThis.clearImmediate,
  };
}

/** The globals as they were when the guard was installed. */
let previous = currentGlobals();

const PROMISIFY = Symbol.for('nodejs.util.promisify.custom');

/**
 * What one install of the guard changed and puts back: the kernel hook and the process listeners
 * it found, and the hosted globals' handle. Everything else the guard installs is made once, at
 * module level, and kept across runs: a run pays for swapping the globals, not for building
 * the guard's functions again (about a fifth of a short simulation's fixed cost).
 */
let hooked: (() => void) | undefined;
let hookedSoon: (() => Promise<void> | undefined) | undefined;
let parked: { uncaught: ((...a: unknown[]) => void)[]; unhandled: ((...a: unknown[]) => void)[] } = { uncaught: [], unhandled: [] };
let hosted: ReturnType<typeof installHostedGlobals> | undefined;
/** The built-ins the kernel's seams check while the guard is installed. */
let builtins: IntrinsicsGuard | undefined;

/** The kernel's seam (kernelHooks.userCodeReturned): puts back built-ins the code under test replaced. */
function userCodeReturned(): void {
  const b = builtins!;
  if (!b.quick()) putBackIntrinsics(b, hostContext.getStore());
}

function exit(kind: 'exit' | 'abort' | 'kill', code: unknown, call?: string): never {
  const store = hostContext.getStore();
  const c = kind === 'abort' ? 134 : kind === 'kill' ? (code as number) : exitCodeOf(code);
  const message = call ?? (kind === 'abort' ? 'process.abort()' : `process.exit(${c})`);
  const escape: Omit<RunEscape, 't'> = { kind: 'exit', code: c, message, ...withStack(stackHere()) };
  if (store?.sandbox !== undefined) {
    if (store.sandbox.alive) store.sandbox.die({ t: store.scope.now(), ...escape });
  } else {
    for (const s of scopesOf(store)) recordEscape(s, escape);
  }
  throw new ProcessExitSignal(c, message);
}

/** The guard's process functions, as object-literal methods: made once. */
const processGuard = {
  exit(code?: number): never {
    return exit('exit', code);
  },
  abort(): never {
    return exit('abort', undefined);
  },
  // a signal to this very process ends it as an exit would (SIGTERM, SIGKILL), or stops it (SIGSTOP)
  reallyExit(code?: unknown): never {
    return exit('exit', code, `process.reallyExit(${exitCodeOf(code)})`);
  },
  _kill(pid: number, signal: number): unknown {
    const self = selfSignal(pid, signal);
    return self ? exit('kill', self.code, self.call) : previous.rawKill.call(process, pid, signal);
  },
  kill(pid: number, signal?: string | number): true {
    const self = selfSignal(pid, signal);
    return self ? exit('kill', self.code, self.call) : (previous.kill as (p: number, s?: string | number) => true).call(process, pid, signal);
  },
};

function onThrown(thrown: unknown, kind: 'uncaught' | 'unhandled-rejection', where: string | undefined): void {
  // a Proxy with throwing traps must not make this handler throw
  const err = inspectableThrown(thrown);
  if (err instanceof ProcessExitSignal) return;
  const store = hostContext.getStore();
  const escape: Omit<RunEscape, 't'> = { kind, code: 1, message: describeThrown(err), ...withStack(err instanceof Error ? cleanStack(err.stack) : undefined), ...(where !== undefined ? { where } : {}) };
  if (store?.sandbox !== undefined) {
    if (store.sandbox.alive) store.sandbox.die({ t: store.scope.now(), ...escape });
    return;
  }
  for (const s of scopesOf(store)) recordEscape(s, escape);
}
function onUncaught(err: unknown, origin: unknown): void {
  onThrown(err, origin === 'unhandledRejection' ? 'unhandled-rejection' : 'uncaught', undefined);
}
function onUnhandled(reason: unknown): void {
  onThrown(reason, 'unhandled-rejection', 'a promise');
}

/** Ends the wait for a short timer (fired, cleared). */
function settleSoon(scope: RunScope, handle: object): void {
  const done = scope.soon.get(handle);
  if (done === undefined) return;
  scope.soon.delete(handle);
  done();
}

/** Waiters of {@link soonRealTimer}: resolved when any short timer of any run ends. */
let soonWaiters: (() => void)[] = [];

/**
 * The kernel's seam (kernelHooks.soonRealTimer): a promise that settles when a short real timer
 * the run's code is waiting on fires (or is cleared, or the run ends), or undefined when there is
 * none.
 */
function soonRealTimer(): Promise<void> | undefined {
  let any = false;
  for (const s of scopes) if (s.soon.size > 0) any = true;
  if (!any) return undefined;
  return new Promise<void>((resolve) => {
    soonWaiters[soonWaiters.length] = resolve;
  });
}

function wakeSoonWaiters(): void {
  if (soonWaiters.length === 0) return;
  const all = soonWaiters;
  soonWaiters = [];
  for (const w of all) w();
}

function track(scope: RunScope, kind: TimerKind, create: (cb: AnyFn) => object, fn: AnyFn, ms?: unknown): object {
  const counter = kind === 'timeout' ? 'setTimeout' : kind === 'interval' ? 'setInterval' : 'setImmediate';
  scope.realTimers[counter]++;
  if (scope.realTimers.firstSite === undefined) {
    const site = firstUserFrame(stackHere());
    if (site !== undefined) scope.realTimers.firstSite = site;
  }
  let handle: object | undefined;
  const callback = function (this: unknown, ...args: unknown[]): unknown {
    if (kind !== 'interval' && handle !== undefined) scope.pending.delete(handle);
    try {
      return fn.apply(this, args);
    } catch (thrown) {
      const err = inspectableThrown(thrown);
      if (!(err instanceof ProcessExitSignal)) {
        recordEscape(scope, { kind: 'uncaught', code: 1, message: describeThrown(err), ...withStack(err instanceof Error ? cleanStack(err.stack) : undefined), where: `a ${counter} callback (a real timer)` });
      }
      return undefined;
    } finally {
      if (handle !== undefined && scope.soon.has(handle)) settleSoon(scope, handle);
    }
  };
  handle = create(callback);
  scope.pending.set(handle, kind);
  if (kind === 'immediate' || (kind === 'timeout' && !(Number(ms) > SOON_MS))) scope.soon.set(handle, wakeSoonWaiters);
  return handle;
}

/**
 * Whether one of the guard's timer functions is running: entered again from inside it, it is
 * calling through to itself (a wrapper of the guard's own timers, taken during a run by a check a
 * timed-out test left running and put back as the global the guard then took as what it replaced:
 * it recursed until the stack overflowed, failing every later test of that vitest worker). The
 * inner call goes to Node's own timer.
 */
let inTimer = false;

/** The guard's timer globals, as object-literal methods: made once, so `ours` is the same across runs. */
const timerGuard = {
  setTimeout(fn: unknown, ms?: unknown, ...args: unknown[]): unknown {
    if (inTimer) return (originals.setTimeout as AnyFn)(fn, ms, ...args);
    inTimer = true;
    try {
      const store = hostContext.getStore();
      const prev = previous;
      if (typeof fn !== 'function') return (prev.setTimeout as AnyFn)(fn, ms, ...args);
      if (store?.sandbox !== undefined) return store.sandbox.setTimeout(fn as AnyFn, ms, args, false);
      const scope = scopeOf(store);
      if (scope !== undefined) return track(scope, 'timeout', (cb) => (prev.setTimeout as AnyFn)(cb, ms, ...args) as object, fn as AnyFn, ms);
      return (prev.setTimeout as AnyFn)(fn, ms, ...args);
    } finally {
      inTimer = false;
    }
  },
  setInterval(fn: unknown, ms?: unknown, ...args: unknown[]): unknown {
    if (inTimer) return (originals.setInterval as AnyFn)(fn, ms, ...args);
    inTimer = true;
    try {
      const store = hostContext.getStore();
      const prev = previous;
      if (typeof fn !== 'function') return (prev.setInterval as AnyFn)(fn, ms, ...args);
      if (store?.sandbox !== undefined) return store.sandbox.setTimeout(fn as AnyFn, ms, args, true);
      const scope = scopeOf(store);
      if (scope !== undefined) return track(scope, 'interval', (cb) => (prev.setInterval as AnyFn)(cb, ms, ...args) as object, fn as AnyFn);
      return (prev.setInterval as AnyFn)(fn, ms, ...args);
    } finally {
      inTimer = false;
    }
  },
  setImmediate(fn: unknown, ...args: unknown[]): unknown {
    if (inTimer) return (originals.setImmediate as AnyFn)(fn, ...args);
    inTimer = true;
    try {
      const store = hostContext.getStore();
      const prev = previous;
      if (typeof fn !== 'function') return (prev.setImmediate as AnyFn)(fn, ...args);
      if (store?.sandbox !== undefined) return store.sandbox.setImmediate(fn as AnyFn, args);
      const scope = scopeOf(store);
      if (scope !== undefined) return track(scope, 'immediate', (cb) => (prev.setImmediate as AnyFn)(cb, ...args) as object, fn as AnyFn);
      return (prev.setImmediate as AnyFn)(fn, ...args);
    } finally {
      inTimer = false;
    }
  },
  clearTimeout(timer: unknown): void {
    clearThrough(timer, 'clearTimeout');
  },
  clearInterval(timer: unknown): void {
    clearThrough(timer, 'clearInterval');
  },
  clearImmediate(timer: unknown): void {
    clearThrough(timer, 'clearImmediate');
  },
};

function clearThrough(timer: unknown, name: 'clearTimeout' | 'clearInterval' | 'clearImmediate'): void {
  if (inTimer) return void (originals[name] as AnyFn)(timer);
  inTimer = true;
  try {
    clearReal(timer, previous[name] as AnyFn);
  } finally {
    inTimer = false;
  }
}
Object.assign(timerGuard.setTimeout, { [PROMISIFY]: (ms: unknown, value?: unknown) => new Promise((resolve) => timerGuard.setTimeout(() => resolve(value), ms)) });
Object.assign(timerGuard.setImmediate, { [PROMISIFY]: (value?: unknown) => new Promise((resolve) => timerGuard.setImmediate(() => resolve(value))) });

function clearReal(timer: unknown, real: AnyFn): void {
  if (timer === undefined || timer === null) return;
  if (hosted?.clearVirtual(timer)) return;
  if (typeof timer === 'object') {
    for (const s of scopes) {
      s.pending.delete(timer);
      settleSoon(s, timer);
    }
  }
  real(timer);
}

function install(): () => void {
  const g = globalThis as unknown as Record<string, unknown>;
  previous = currentGlobals();

  if (intrinsics === undefined || !intrinsics.verify()) {
    if (otherIntrinsics !== undefined && otherIntrinsics.verify()) [intrinsics, otherIntrinsics] = [otherIntrinsics, intrinsics];
    else [intrinsics, otherIntrinsics] = [guardIntrinsics(), intrinsics];
  }
  builtins = intrinsics;
  setCurrentIntrinsicsGuard(builtins);
  hooked = kernelHooks.userCodeReturned;
  kernelHooks.userCodeReturned = userCodeReturned;
  hookedSoon = kernelHooks.soonRealTimer;
  kernelHooks.soonRealTimer = soonRealTimer;

  process.exit = processGuard.exit as typeof process.exit;
  process.abort = processGuard.abort as typeof process.abort;
  const internals = process as unknown as Internals;
  internals.reallyExit = processGuard.reallyExit;
  internals._kill = processGuard._kill;
  process.kill = processGuard.kill as typeof process.kill;

  // while a run holds the guard, its code's crashes are the run's verdict, not the host's death
  // (Node's default) or a failed test file (vitest's listeners): park the other listeners
  parked = { uncaught: process.rawListeners('uncaughtException') as ((...a: unknown[]) => void)[], unhandled: process.rawListeners('unhandledRejection') as ((...a: unknown[]) => void)[] };
  process.removeAllListeners('uncaughtException');
  process.removeAllListeners('unhandledRejection');
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUnhandled);

  hosted = installHostedGlobals();

  setTimerGlobals(timerGuard);
  ours = timerGuard;

  return uninstall;
}

/** The six timer globals set from one holder (the guard's, or what it replaced); plain stores, no loop on this path. */
function setTimerGlobals(t: { setTimeout: unknown; setInterval: unknown; setImmediate: unknown; clearTimeout: unknown; clearInterval: unknown; clearImmediate: unknown }): void {
  const g = globalThis as unknown as Record<string, unknown>;
  g['setTimeout'] = t.setTimeout;
  g['setInterval'] = t.setInterval;
  g['setImmediate'] = t.setImmediate;
  g['clearTimeout'] = t.clearTimeout;
  g['clearInterval'] = t.clearInterval;
  g['clearImmediate'] = t.clearImmediate;
}

/** Puts back what {@link install} replaced. */
function uninstall(): void {
  const g = globalThis as unknown as Record<string, unknown>;
  const prev = previous;
  kernelHooks.userCodeReturned = hooked;
  kernelHooks.soonRealTimer = hookedSoon;
  wakeSoonWaiters();
  hooked = undefined;
  builtins = undefined;
  setCurrentIntrinsicsGuard(undefined);
  ours = {};
  hosted?.restore();
  hosted = undefined;
  setTimerGlobals(prev);
  process.removeListener('uncaughtException', onUncaught);
  process.removeListener('unhandledRejection', onUnhandled);
  for (const l of parked.uncaught) process.on('uncaughtException', l);
  for (const l of parked.unhandled) process.on('unhandledRejection', l);
  parked = { uncaught: [], unhandled: [] };
  process.exit = prev.exit;
  process.abort = prev.abort;
  process.kill = prev.kill;
  const internals = process as unknown as Internals;
  internals.reallyExit = prev.reallyExit;
  internals._kill = prev.rawKill;
}

function withStack(stack: string | undefined): { stack?: string } {
  return stack !== undefined ? { stack } : {};
}
