import { constants as osConstants } from 'node:os';

/**
 * Thrown by `process.exit` (and `process.abort`) while the run guard is installed: it unwinds
 * the caller's stack as a real exit would stop its code, and the guard, which recorded the exit
 * already, ignores it wherever it surfaces (a rejected promise, an uncaught exception).
 * @internal
 */
export class ProcessExitSignal extends Error {
  constructor(
    readonly code: number,
    call = `process.exit(${code})`,
  ) {
    super(`${call} was called; steadystate recorded the exit and stopped the calling code`);
    this.name = 'ProcessExitSignal';
  }
}

/** The exit code `process.exit(code)` would use (Node's own coercion; `process.exitCode` or 0 when absent). @internal */
export function exitCodeOf(code: unknown): number {
  if (code === undefined || code === null) {
    const c = process.exitCode;
    return typeof c === 'number' ? c : typeof c === 'string' && /^\d+$/.test(c) ? Number(c) : 0;
  }
  const n = typeof code === 'number' ? code : typeof code === 'string' && /^-?\d+$/.test(code) ? Number(code) : NaN;
  return Number.isInteger(n) ? n & 0xff : 1;
}

/** Signals whose default action is to do nothing: sending one to this process ends nothing. */
const HARMLESS = new Set(['SIGCHLD', 'SIGCONT', 'SIGURG', 'SIGWINCH']);

/**
 * What `process.kill(pid, signal)` would do to this process, when it targets it (its own pid, or
 * 0: its process group) with a signal that ends or stops it: the exit code a shell would see
 * (128 + the signal's number) and the call in words. Undefined for any other call (another
 * process, signal 0, a signal ignored by default), which `process.kill` may then make for real.
 * Code under test that signals itself would end the harness with no verdict (or hang it on
 * SIGSTOP), as `process.exit` would.
 * @internal
 */
export function selfSignal(pid: unknown, signal: unknown): { code: number; call: string } | undefined {
  if (pid !== process.pid && pid !== 0 && pid !== String(process.pid)) return undefined;
  const sig = signal === undefined ? 'SIGTERM' : signal;
  const byNumber = typeof sig === 'number' ? Object.entries(osConstants.signals).find(([, n]) => n === sig)?.[0] : undefined;
  const name = typeof sig === 'string' ? sig.toUpperCase() : byNumber;
  if (sig === 0 || name === undefined || HARMLESS.has(name)) return undefined;
  const number = (osConstants.signals as Record<string, number | undefined>)[name];
  if (number === undefined) return undefined;
  return { code: 128 + number, call: `process.kill(${pid === 0 ? '0' : 'process.pid'}, '${name}')` };
}
