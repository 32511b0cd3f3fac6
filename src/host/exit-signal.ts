/**
 * Thrown by `process.exit` (and `process.abort`) while the run guard is installed: it unwinds
 * the caller's stack as a real exit would stop its code, and the guard, which recorded the exit
 * already, ignores it wherever it surfaces (a rejected promise, an uncaught exception).
 * @internal
 */
export class ProcessExitSignal extends Error {
  constructor(readonly code: number) {
    super(`process.exit(${code}) was called; steadystate recorded the exit and stopped the calling code`);
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
