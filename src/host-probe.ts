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
      const restores: (() => void)[] = [];
      const hostNow = Date.now.bind(Date);
      for (const s of sources()) {
        counts[s.name] ??= 0;
        const restore = patch(s, () => counts[s.name]!++);
        if (restore) restores.push(restore);
      }
      restores.push(patchDateConstructor(hostNow, () => (counts['new Date()'] = (counts['new Date()'] ?? 0) + 1)));
      syncBuiltinESMExports();
      return () => {
        for (const r of restores.reverse()) r();
        syncBuiltinESMExports();
        return counts;
      };
    },
  };
}

/** Wraps one function (keeping its own properties, so util.promisify(setTimeout) works); returns the restore. */
function patch(s: Source, count: () => void): (() => void) | undefined {
  const owner = s.owner as Record<string, unknown>;
  const real = owner[s.key];
  if (typeof real !== 'function') return undefined;
  const fn = real as (...a: unknown[]) => unknown;
  const call = s.call;
  const wrapped = function (this: unknown, ...args: unknown[]) {
    count();
    return call ? call(fn, this, args) : fn.apply(this, args);
  };
  Object.assign(wrapped, real);
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

/** `new Date()` and `Date()` read the clock: count them (shifted), keep `new Date(x)` and `instanceof Date`. */
function patchDateConstructor(hostNow: () => number, count: () => void): () => void {
  const RealDate = globalThis.Date;
  globalThis.Date = new Proxy(RealDate, {
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
  return () => {
    globalThis.Date = RealDate;
  };
}
