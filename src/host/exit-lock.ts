import { ProcessExitSignal, exitCodeOf } from './exit-signal.js';
import { originals } from './originals.js';
import { stackHere } from './stack.js';

/** A `process.exit` the lock refused (outside any run: at import, or from code left running). @internal */
export interface StrayExit {
  code: number;
  stack?: string;
}

const strays: StrayExit[] = [];
let locked = false;

/**
 * Makes `process.exit` (and `process.abort`) unable to end this process or thread for good, for
 * the CLI and its worker threads, whose exit code must come only from the verdict: a call is
 * recorded and the calling code stopped ({@link ProcessExitSignal}). During a run the run guard
 * sits on top of the lock and records the exit in the run. A stray `ProcessExitSignal` that
 * surfaces as an unhandled rejection is dropped; any other unhandled rejection still ends the
 * process as Node would (message and exit code 1). The CLI exits through
 * `originals.exit` when it is done.
 * @internal
 */
export function lockProcessExit(): void {
  if (locked) return;
  locked = true;
  const refuse = (code: number): never => {
    const stack = stackHere();
    strays.push({ code, ...(stack !== undefined ? { stack } : {}) });
    throw new ProcessExitSignal(code);
  };
  process.exit = ((code?: number) => refuse(exitCodeOf(code))) as typeof process.exit;
  process.abort = (() => refuse(134)) as typeof process.abort;
  process.on('uncaughtException', (err) => {
    if (err instanceof ProcessExitSignal) return;
    // what Node does without a listener: the stack on stderr, exit code 1
    process.stderr.write(`${err instanceof Error ? (err.stack ?? String(err)) : String(err)}\n`);
    originals.exit(1);
  });
}

/** Exits refused so far (and forgets them). @internal */
export function takeStrayExits(): StrayExit[] {
  return strays.splice(0, strays.length);
}
