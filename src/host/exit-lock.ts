import { ProcessExitSignal, exitCodeOf, selfSignal } from './exit-signal.js';
import { originals } from './originals.js';
import { stackHere } from './stack.js';

/** A `process.exit` the lock refused (outside any run: at import, or from code left running). @internal */
export interface StrayExit {
  code: number;
  /** The call, in words: `process.exit(0)`, `process.kill(process.pid, 'SIGTERM')`. */
  call: string;
  stack?: string;
}

const strays: StrayExit[] = [];
let locked = false;

/**
 * Makes `process.exit` (and `process.abort`) unable to end this process or thread for good, for
 * the CLI and its worker threads, whose exit code must come only from the verdict: a call is
 * recorded and the calling code stopped ({@link ProcessExitSignal}); so is a `process.kill` of this
 * process ({@link selfSignal}). During a run the run guard
 * sits on top of the lock and records the exit in the run. A stray `ProcessExitSignal` that
 * surfaces as an unhandled rejection is dropped; any other unhandled rejection still ends the
 * process as Node would (message and exit code 1). The CLI exits through
 * `originals.exit` when it is done.
 * @internal
 */
export function lockProcessExit(): void {
  if (locked) return;
  locked = true;
  const refuse = (code: number, call: string): never => {
    const stack = stackHere();
    strays.push({ code, call, ...(stack !== undefined ? { stack } : {}) });
    throw new ProcessExitSignal(code, call);
  };
  process.exit = ((code?: number) => {
    const c = exitCodeOf(code);
    return refuse(c, `process.exit(${c})`);
  }) as typeof process.exit;
  process.abort = (() => refuse(134, 'process.abort()')) as typeof process.abort;
  const kill = process.kill.bind(process);
  process.kill = ((pid: number, signal?: string | number) => {
    const self = selfSignal(pid, signal);
    return self ? refuse(self.code, self.call) : kill(pid, signal);
  }) as typeof process.kill;
  process.on('uncaughtException', (err) => {
    if (err instanceof ProcessExitSignal) return;
    // what Node does without a listener: the stack on stderr, exit code 1
    process.stderr.write(`${err instanceof Error ? (err.stack ?? String(err)) : String(err)}\n`);
    originals.exit(1);
  });
}

/** The `exit` listeners present before the checked code first loaded in this thread (undefined: none has loaded). */
let trusted: Set<unknown> | undefined;

/**
 * Takes the `exit` listeners present now as the only ones {@link exitWithVerdict} runs: called
 * right before the checked code first loads in this thread (the first call wins). A listener
 * the checked code adds at import or in a run never runs at the CLI's exit, after the reports and
 * the shard result are written: it could rewrite them (`--workers 0`, red team rt42 F11). The
 * harness's own listeners added later go through {@link onHarnessExit}.
 * @internal
 */
export function trustExitListeners(): void {
  trusted ??= new Set(process.rawListeners('exit'));
}

/** The harness's own exit cleanups ({@link onHarnessExit}), each run once. */
const cleanups: (() => void)[] = [];

/**
 * Adds a harness cleanup to run at exit (like `process.once('exit', fn)`), also when the checked
 * code has loaded since {@link trustExitListeners}: kept here, not trusted by identity from the
 * process's listener list (which the checked code could have rewritten).
 * @internal
 */
export function onHarnessExit(fn: () => void): void {
  let ran = false;
  const once = (): void => {
    if (ran) return;
    ran = true;
    fn();
  };
  cleanups.push(once);
  process.on('exit', once);
}

/**
 * Ends the process with `code`, the verdict's, whatever the code under test left behind: the
 * harness's `process.on('exit')` listeners still run (cleanup), but one that throws cannot stop
 * the exit; the checked code's own listeners do not run ({@link trustExitListeners}), so none can
 * change the code (`process.exitCode`, `process.exit(0)`) or rewrite the files just written.
 * @internal
 */
export function exitWithVerdict(code: number): never {
  const listeners = process.rawListeners('exit') as ((c: number) => void)[];
  // the listeners run here, not through process.emit, and the exit is Node's native one saved at
  // load: code under test that replaced process.reallyExit or wrapped process.emit at import would
  // otherwise pick the code (`replay` and `--workers 0` load it in this thread; red team, stop 40)
  for (const l of [...listeners.filter((f) => trusted === undefined || trusted.has(f)), ...cleanups]) {
    try {
      l.call(process, code);
    } catch {
      // a throwing exit listener (or a refused process.exit in one) must not end the exit early
    }
  }
  return originals.reallyExit(code);
}

/** Exits refused so far (and forgets them). @internal */
export function takeStrayExits(): StrayExit[] {
  return strays.splice(0, strays.length);
}
