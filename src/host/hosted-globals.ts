import { createRequire, syncBuiltinESMExports } from 'node:module';
import { currentSandbox, type ProcessSandbox } from './host-context.js';
import { installVirtualFiles } from './virtual-files.js';

/**
 * Timers of hosted processes, by handle: `clearTimeout` works on them from any context, as on a
 * real Timeout. Filled by the process sandboxes.
 * @internal
 */
export const virtualTimers = new WeakMap<object, () => void>();

const require = createRequire(import.meta.url);
const timersModule = require('node:timers') as Record<string, unknown>;
const timersPromises = require('node:timers/promises') as Record<string, unknown>;

type AnyFn = (...args: unknown[]) => unknown;
const LEVELS = { debug: 'debug', trace: 'debug', log: 'info', info: 'info', warn: 'warn', error: 'error' } as const;

let restoreActive: (() => void) | undefined;
/** Whether the guard is installed (hosting may only start inside a run). */
let guardUp = false;

/**
 * The part of the run guard that serves hosted programs. Installed (cheaply) with the guard;
 * the globals themselves are replaced only once a hosted process exists
 * ({@link activateHostedGlobals}), and restored with the guard.
 * @internal
 */
export function installHostedGlobals(): { clearVirtual(timer: unknown): boolean; restore(): void } {
  guardUp = true;
  return {
    clearVirtual(timer) {
      if (timer === undefined || timer === null) return false;
      if (currentSandbox()?.clearTimer(timer)) return true;
      if (typeof timer !== 'object') return false;
      const cancel = virtualTimers.get(timer);
      if (cancel === undefined) return false;
      cancel();
      return true;
    },
    restore() {
      guardUp = false;
      const r = restoreActive;
      restoreActive = undefined;
      r?.();
    },
  };
}

/**
 * Replaces what a hosted program reads from the host with functions that ask the sandbox whose
 * code is running (and fall back to the host's own for everything else): `Date`,
 * `performance.now`, `process.hrtime`, `process.uptime`, `process.env`, `process.argv`,
 * `console.*`, `process.stdout/stderr.write`, the `node:timers` / `node:timers/promises`
 * exports (ESM named imports included), and the `node:fs` reads of an incarnation's virtual
 * files (virtual-files.ts). Global `setTimeout` and friends are the run guard's.
 * @internal
 */
export function activateHostedGlobals(): void {
  if (!guardUp) throw new Error('steadystate: a hosted process can only run inside a simulation (the run guard is not installed)');
  if (restoreActive !== undefined) return;
  const undo: (() => void)[] = [];
  const set = <T extends object>(target: T, key: keyof T & string, value: unknown): void => {
    const had = Object.prototype.hasOwnProperty.call(target, key);
    const old = (target as Record<string, unknown>)[key];
    (target as Record<string, unknown>)[key] = value;
    undo.push(() => {
      if (had) (target as Record<string, unknown>)[key] = old;
      else delete (target as Record<string, unknown>)[key];
    });
  };

  // clocks
  const RealDate = globalThis.Date;
  const realNow = RealDate.now;
  const hostedNow = function now(): number {
    const s = currentSandbox();
    return s ? s.epochMs() : realNow.call(RealDate);
  };
  const VirtualDate: DateConstructor = new Proxy(RealDate, {
    construct(target, args, newTarget): object {
      const s = args.length === 0 ? currentSandbox() : undefined;
      return Reflect.construct(target, s ? [s.epochMs()] : args, newTarget === VirtualDate ? target : newTarget);
    },
    apply(target, thisArg, args) {
      const s = currentSandbox();
      return s ? new target(s.epochMs()).toString() : Reflect.apply(target, thisArg, args);
    },
    get(target, key, receiver) {
      if (key === 'now') return hostedNow;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  set(globalThis, 'Date', VirtualDate);
  const perf = globalThis.performance;
  const realPerfNow = perf.now;
  set(perf, 'now', function now(): number {
    const s = currentSandbox();
    return s ? s.uptimeMs() : realPerfNow.call(perf);
  });
  const realHrtime = process.hrtime;
  const hrtime = function hrtime(previous?: [number, number]): [number, number] {
    const s = currentSandbox();
    if (!s) return realHrtime.call(process, previous);
    const ns = BigInt(Math.round(s.uptimeMs() * 1e6));
    let sec = Number(ns / 1_000_000_000n);
    let nsec = Number(ns % 1_000_000_000n);
    if (previous) {
      sec -= previous[0];
      nsec -= previous[1];
      if (nsec < 0) {
        sec--;
        nsec += 1e9;
      }
    }
    return [sec, nsec];
  };
  hrtime.bigint = function bigint(): bigint {
    const s = currentSandbox();
    return s ? BigInt(Math.round(s.uptimeMs() * 1e6)) : realHrtime.bigint();
  };
  set(process, 'hrtime', hrtime);
  const realUptime = process.uptime;
  set(process, 'uptime', function uptime(): number {
    const s = currentSandbox();
    return s ? s.uptimeMs() / 1000 : realUptime.call(process);
  });

  // environment and arguments
  const realEnv = process.env;
  const envOf = (): Record<string, string | undefined> => currentSandbox()?.env ?? realEnv;
  const env = new Proxy(realEnv, {
    get: (_t, k) => (typeof k === 'string' ? envOf()[k] : undefined),
    set: (_t, k, v) => {
      if (typeof k !== 'string') return false;
      envOf()[k] = String(v);
      return true;
    },
    has: (_t, k) => typeof k === 'string' && k in envOf(),
    deleteProperty: (_t, k) => typeof k !== 'string' || delete envOf()[k],
    ownKeys: () => Reflect.ownKeys(envOf()),
    getOwnPropertyDescriptor: (_t, k) => {
      const e = envOf();
      if (typeof k !== 'string' || !(k in e)) return undefined;
      return { value: e[k], writable: true, enumerable: true, configurable: true };
    },
  });
  set(process, 'env', env);
  const realArgv = process.argv;
  Object.defineProperty(process, 'argv', { configurable: true, enumerable: true, get: () => currentSandbox()?.argv ?? realArgv, set: () => undefined });
  undo.push(() => Object.defineProperty(process, 'argv', { configurable: true, enumerable: true, writable: true, value: realArgv }));

  // output
  for (const [method, level] of Object.entries(LEVELS)) {
    const real = (console as unknown as Record<string, AnyFn>)[method]!;
    set(console, method as keyof Console & string, function (this: unknown, ...args: unknown[]): unknown {
      const s = currentSandbox();
      if (!s) return real.apply(this, args);
      s.log(level, method === 'trace' ? [...args, `\n${new Error('Trace').stack?.split('\n').slice(2).join('\n') ?? ''}`] : args);
      return undefined;
    });
  }
  for (const [stream, level] of [
    [process.stdout, 'info'],
    [process.stderr, 'error'],
  ] as const) {
    const real = stream.write;
    set(stream, 'write', function (this: unknown, chunk: unknown, ...rest: unknown[]): boolean {
      const s = currentSandbox();
      if (!s) return (real as AnyFn).apply(this, [chunk, ...rest]) as boolean;
      s.log(level, [typeof chunk === 'string' ? chunk.replace(/\n$/, '') : Buffer.isBuffer(chunk) ? chunk.toString('utf8').replace(/\n$/, '') : String(chunk)]);
      const cb = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      if (cb) process.nextTick(cb);
      return true;
    });
  }

  // node:timers and node:timers/promises, for code that imports them instead of using the globals
  const g = globalThis as unknown as Record<string, AnyFn>;
  for (const name of ['setTimeout', 'setInterval', 'setImmediate', 'clearTimeout', 'clearInterval', 'clearImmediate']) {
    const real = timersModule[name] as AnyFn;
    const patched = g[name]!;
    set(timersModule, name, function (this: unknown, ...args: unknown[]): unknown {
      return currentSandbox() ? patched.apply(this, args) : real.apply(this, args);
    });
  }
  const realSleep = timersPromises['setTimeout'] as AnyFn;
  set(timersPromises, 'setTimeout', function (ms?: unknown, value?: unknown, options?: { signal?: AbortSignal }): Promise<unknown> {
    const s = currentSandbox();
    return s ? sleep(s, ms, value, options?.signal, false) : (realSleep(ms, value, options) as Promise<unknown>);
  });
  const realImmediate = timersPromises['setImmediate'] as AnyFn;
  set(timersPromises, 'setImmediate', function (value?: unknown, options?: { signal?: AbortSignal }): Promise<unknown> {
    const s = currentSandbox();
    return s ? sleep(s, 0, value, options?.signal, true) : (realImmediate(value, options) as Promise<unknown>);
  });
  const realInterval = timersPromises['setInterval'] as AnyFn;
  set(timersPromises, 'setInterval', function (ms?: unknown, value?: unknown, options?: { signal?: AbortSignal }): AsyncIterable<unknown> {
    const s = currentSandbox();
    return s ? ticks(s, ms, value, options?.signal) : (realInterval(ms, value, options) as AsyncIterable<unknown>);
  });
  const scheduler = timersPromises['scheduler'] as Record<string, AnyFn> | undefined;
  if (scheduler) {
    const realWait = scheduler['wait']!;
    const realYield = scheduler['yield']!;
    set(scheduler, 'wait', function (ms?: unknown, options?: { signal?: AbortSignal }): Promise<unknown> {
      const s = currentSandbox();
      return s ? sleep(s, ms, undefined, options?.signal, false) : (realWait.call(scheduler, ms, options) as Promise<unknown>);
    });
    set(scheduler, 'yield', function (): Promise<unknown> {
      const s = currentSandbox();
      return s ? sleep(s, 0, undefined, undefined, true) : (realYield.call(scheduler) as Promise<unknown>);
    });
  }
  // files only the incarnation has (its service-account token, CA and namespace)
  undo.push(installVirtualFiles());
  syncBuiltinESMExports();

  restoreActive = () => {
    for (const u of undo.reverse()) u();
    syncBuiltinESMExports();
  };
}

function abortError(signal: AbortSignal): Error {
  return Object.assign(new Error('The operation was aborted', { cause: signal.reason }), { name: 'AbortError', code: 'ABORT_ERR' });
}

/** `timers/promises.setTimeout` / `setImmediate` on the sandbox's virtual clock. */
function sleep(s: ProcessSandbox, ms: unknown, value: unknown, signal: AbortSignal | undefined, immediate: boolean): Promise<unknown> {
  if (signal?.aborted) return Promise.reject(abortError(signal));
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      s.clearTimer(timer);
      reject(abortError(signal!));
    };
    const done = (): void => {
      signal?.removeEventListener('abort', onAbort);
      resolve(value);
    };
    const timer = immediate ? s.setImmediate(done, []) : s.setTimeout(done, ms, [], false);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** `timers/promises.setInterval` on the virtual clock: an async iterator of ticks. */
async function* ticks(s: ProcessSandbox, ms: unknown, value: unknown, signal: AbortSignal | undefined): AsyncGenerator<unknown> {
  for (;;) {
    yield await sleep(s, ms, value, signal, false);
  }
}
