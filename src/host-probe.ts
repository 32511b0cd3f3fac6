// the modules' own objects (writable), not namespaces: syncBuiltinESMExports carries patches to named imports
import crypto from 'node:crypto';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import type { HostSourceProbe } from './harness/determinism.js';
import { harnessReplaced } from './host/intrinsics.js';

/** Wall-clock shift applied during a determinism re-run: code that reads the host clock diverges for sure. */
const SHIFT_MS = 86_400_000 + 1_234;

/** One patched function: where it lives, its name in the verdict, and how the patch behaves. */
interface Source {
  name: string;
  owner: object;
  key: string;
  /** Replaces the call (e.g. shifts the clock); by default the real function runs. */
  call?: (real: (...args: unknown[]) => unknown, self: unknown, args: unknown[]) => unknown;
}

/**
 * Every host source of nondeterminism the determinism check can see: randomness (Math.random,
 * node's and the web's crypto), clocks (Date, performance, process.hrtime), timers, and file
 * reads. The clocks are shifted so code that reads them diverges for sure.
 */
function sources(): Source[] {
  const perf = globalThis.performance;
  const web = globalThis.crypto as unknown as object | undefined;
  const shifted = (real: (...a: unknown[]) => unknown, self: unknown, args: unknown[]) => (real.apply(self, args) as number) + SHIFT_MS;
  const list: Source[] = [
    { name: 'Math.random()', owner: Math, key: 'random' },
    { name: 'Date.now()', owner: Date, key: 'now', call: shifted },
    { name: 'performance.now()', owner: perf, key: 'now', call: shifted },
    // bigint first: wrapping hrtime copies its properties, the wrapped bigint among them
    { name: 'process.hrtime()', owner: process.hrtime, key: 'bigint' },
    { name: 'process.hrtime()', owner: process, key: 'hrtime' },
    { name: 'setTimeout()', owner: globalThis, key: 'setTimeout' },
    { name: 'setInterval()', owner: globalThis, key: 'setInterval' },
    { name: 'setImmediate()', owner: globalThis, key: 'setImmediate' },
    { name: 'crypto.randomUUID()', owner: crypto, key: 'randomUUID' },
    { name: 'crypto.getRandomValues()', owner: crypto, key: 'getRandomValues' },
    { name: 'crypto.randomBytes()', owner: crypto, key: 'randomBytes' },
    { name: 'crypto.randomInt()', owner: crypto, key: 'randomInt' },
    { name: 'crypto.randomFillSync()', owner: crypto, key: 'randomFillSync' },
  ];
  if (web) list.push({ name: 'crypto.randomUUID()', owner: web, key: 'randomUUID' }, { name: 'crypto.getRandomValues()', owner: web, key: 'getRandomValues' });
  for (const key of ['readFileSync', 'readFile', 'readdirSync', 'readdir', 'statSync', 'existsSync', 'openSync', 'writeFileSync']) list.push({ name: `fs.${key}()`, owner: fs, key });
  for (const key of ['readFile', 'readdir', 'stat', 'open']) list.push({ name: `fs.promises.${key}()`, owner: fs.promises, key });
  return list;
}

/**
 * The host's sources of nondeterminism, watched (and the clocks shifted) while the determinism
 * self-check re-runs a scenario. Lives at the composition root because the harness itself may
 * never touch them (test/architecture.test.ts). Everything is restored when the re-run ends;
 * named imports of node:crypto and node:fs see the patch too (syncBuiltinESMExports).
 * @internal
 */
export function createHostProbe(): HostSourceProbe {
  return {
    start() {
      const counts: Record<string, number> = {};
      active.counts = counts;
      // the host's clock, unshifted, before the re-run patches it (what `new Date()` reads, shifted)
      active.hostNow = Date.now.bind(Date);
      const restores: (() => void)[] = [];
      for (const s of sources()) {
        counts[s.name] ??= 0;
        const restore = patch(s);
        if (restore) restores.push(restore);
      }
      restores.push(patchDateConstructor());
      syncBuiltinESMExports();
      return () => {
        for (const r of restores.reverse()) r();
        syncBuiltinESMExports();
        return counts;
      };
    },
  };
}

/** The counts of the re-run in progress (the last one's after it ended: a wrapper kept by someone counts there, harmlessly). */
const active: { counts: Record<string, number>; hostNow: () => number } = { counts: {}, hostNow: () => 0 };

/**
 * The wrapper of each real function, made once and put in place at every re-run: built-ins that
 * look the same at every re-run let the run guard keep the snapshot it took of them (a fresh
 * wrapper would make it take and compile a new one each time, and leave the re-run checking it
 * unoptimized at every seam: a re-run then cost about 1.5 runs), and let V8 keep its code.
 */
const wrappers = new WeakMap<object, Map<string, { real: unknown; wrapped: unknown }>>();

/** Wraps one function (keeping its own properties, so util.promisify(setTimeout) works); returns the restore. */
function patch(s: Source): (() => void) | undefined {
  const owner = s.owner as Record<string, unknown>;
  const real = owner[s.key];
  if (typeof real !== 'function') return undefined;
  let byKey = wrappers.get(owner);
  if (byKey === undefined) wrappers.set(owner, (byKey = new Map()));
  let made = byKey.get(s.key);
  if (made === undefined || made.real !== real) {
    made = { real, wrapped: wrap(s, real as (...a: unknown[]) => unknown) };
    byKey.set(s.key, made);
  }
  const wrapped = made.wrapped;
  const own = Object.prototype.hasOwnProperty.call(owner, s.key);
  try {
    owner[s.key] = wrapped;
  } catch {
    return undefined; // a read-only binding: not watchable
  }
  // the harness's own patch (Math.random): not the code under test replacing a built-in
  harnessReplaced(owner, s.key);
  return () => {
    if (own) owner[s.key] = real;
    else delete owner[s.key];
    harnessReplaced(owner, s.key);
  };
}

/** The wrapper of `real` (see {@link patch}): counts the call in the re-run in progress. */
function wrap(s: Source, fn: (...a: unknown[]) => unknown): (...a: unknown[]) => unknown {
  const call = s.call;
  const name = s.name;
  const wrapped = function (this: unknown, ...args: unknown[]) {
    const counts = active.counts;
    counts[name] = (counts[name] ?? 0) + 1;
    return call ? call(fn, this, args) : fn.apply(this, args);
  };
  Object.assign(wrapped, fn);
  return wrapped;
}

/** The Date proxy of each real Date, made once (see {@link patch}). */
const dateProxies = new WeakMap<DateConstructor, DateConstructor>();

/** `new Date()` and `Date()` read the clock: count them (shifted), keep `new Date(x)` and `instanceof Date`. */
function patchDateConstructor(): () => void {
  const RealDate = globalThis.Date;
  let proxy = dateProxies.get(RealDate);
  if (proxy === undefined) dateProxies.set(RealDate, (proxy = dateProxy(RealDate)));
  globalThis.Date = proxy;
  return () => {
    globalThis.Date = RealDate;
  };
}

function dateProxy(RealDate: DateConstructor): DateConstructor {
  const hostNow = (): number => active.hostNow();
  const count = (): void => {
    const counts = active.counts;
    counts['new Date()'] = (counts['new Date()'] ?? 0) + 1;
  };
  return new Proxy(RealDate, {
    construct(target, args: unknown[], newTarget) {
      if (args.length > 0) return Reflect.construct(target, args, newTarget) as object;
      count();
      return Reflect.construct(target, [hostNow() + SHIFT_MS], newTarget) as object;
    },
    apply(target) {
      count();
      return new target(hostNow() + SHIFT_MS).toString();
    },
  });
}
