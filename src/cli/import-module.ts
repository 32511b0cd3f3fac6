import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { codeFrameColumns } from '@babel/code-frame';
import { transformSync } from 'esbuild';
import { selfSignal } from '../host/exit-signal.js';
import { describeThrown } from '../sim/thrown.js';
import { UsageError } from './usage-error.js';

/**
 * Importing a user's module is running its top level, which is user code like any reconcile:
 * it may never finish (a top-level await on a long timer, or on a promise nothing will settle),
 * call `process.exit`, throw a plain object or fail to compile. Each ends here as a
 * {@link UsageError} saying which, instead of a hang, a silent exit code or "[object Object]".
 */

/** Thrown by `process.exit` while a module loads: the exit becomes a message. */
class ExitAtImport extends Error {
  constructor(call: string) {
    super(call);
  }
}

/**
 * Imports `abs` with its top level guarded: `process.exit` throws instead of exiting, a load that
 * outlasts `timeoutMs` or can never finish (node has nothing left to run) is given up on.
 * @param file - the path as the user typed it, for messages
 * @throws UsageError for every way the module fails to load
 * @internal
 */
export async function importUserModule(abs: string, file: string, command: string, timeoutMs: number): Promise<Record<string, unknown>> {
  const where = `steadystate ${command}: loading ${JSON.stringify(file)}`;
  const realExit = process.exit;
  const realKill = process.kill;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onDrain: (() => void) | undefined;
  const stuck = new Promise<never>((_, reject) => {
    // unref'd: a module waiting on nothing lets the loop drain, and beforeExit says so at once
    timer = setTimeout(() => reject(new UsageError(`${where} did not finish within ${timeoutMs / 1000} s: its top level still waits (a top-level await on a timer, a connection or a promise). Move slow work out of the module's top level, into the reconcile or a lazy initialiser; STEADYSTATE_LOAD_TIMEOUT_MS sets this limit.`)), timeoutMs);
    timer.unref();
    onDrain = () =>
      reject(new UsageError(`${where} never finished: its top level awaits a promise that nothing can settle (node had nothing left to run). Remove that top-level await, or resolve the promise in the module.`));
    process.once('beforeExit', onDrain);
  });
  process.exit = ((code?: unknown) => {
    throw new ExitAtImport(`process.exit(${code === undefined ? '' : String(code)})`);
  }) as typeof process.exit;
  process.kill = ((pid: number, signal?: string | number) => {
    const self = selfSignal(pid, signal);
    if (self) throw new ExitAtImport(self.call);
    return realKill.call(process, pid, signal);
  }) as typeof process.kill;
  try {
    return (await Promise.race([import(pathToFileURL(abs).href), stuck])) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw loadError(err, where, file, abs);
  } finally {
    process.exit = realExit;
    process.kill = realKill;
    clearTimeout(timer);
    if (onDrain) process.off('beforeExit', onDrain);
  }
}

/** The error of a failed import, in words, with a code frame when it is a syntax error. */
function loadError(err: unknown, where: string, file: string, abs: string): UsageError {
  if (err instanceof ExitAtImport) {
    return new UsageError(`${where} failed: its top level called ${err.message}, which would have ended the check with no verdict. A controller module must not exit; throw an Error instead if it cannot start.`);
  }
  const located = syntaxLocation(err) ?? (err instanceof SyntaxError ? locateInEntry(abs, err.message) : undefined);
  if (located) {
    const frame = codeFrame(located);
    const rel = relative(process.cwd(), located.path);
    const display = rel.startsWith('..') ? located.path : rel.split('\\').join('/');
    return new UsageError(`${where} failed: ${located.text} at ${display}:${located.line}:${located.column}. Fix the syntax error and try again.`, frame ? { detail: frame } : {});
  }
  const cause = err instanceof Error && err.cause !== undefined ? ` (cause: ${describeThrown(err.cause)})` : '';
  const first = (err instanceof Error ? err.message : `it threw ${describeThrown(err)}`).split('\n')[0] ?? '';
  return new UsageError(`${where} failed: ${first}${cause}. Fix the module (run \`npx tsx ${file}\` to see the full error) and try again.`);
}

interface SyntaxLocation {
  path: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
  text: string;
}

/**
 * Where a syntax error is, from esbuild's (tsx's) "file:line:col: ERROR: text" lines (0-based column).
 */
function syntaxLocation(err: unknown): SyntaxLocation | undefined {
  if (!(err instanceof Error)) return undefined;
  const esbuild = /^(.+?):(\d+):(\d+): ERROR: (.+)$/m.exec(err.message);
  if (esbuild && /Transform failed/.test(err.message)) {
    const path = esbuild[1]!;
    return { path, line: Number(esbuild[2]), column: Number(esbuild[3]) + 1, text: esbuild[4]! };
  }
  return undefined;
}

/**
 * Node's SyntaxError for a JavaScript module names no file: parse the entry file with esbuild
 * (tsx's compiler) to find the spot, when the error is there.
 */
function locateInEntry(abs: string, message: string): SyntaxLocation | undefined {
  let source: string;
  try {
    source = readFileSync(abs, 'utf8');
  } catch {
    return undefined;
  }
  const loader = /\.[cm]?tsx$/.test(abs) ? 'tsx' : /\.[cm]?ts$/.test(abs) ? 'ts' : /\.jsx$/.test(abs) ? 'jsx' : 'js';
  try {
    transformSync(source, { loader, format: 'esm', sourcefile: abs });
    return undefined;
  } catch (e) {
    const loc = (e as { errors?: { text: string; location: { line: number; column: number } | null }[] }).errors?.[0];
    if (!loc?.location) return undefined;
    return { path: abs, line: loc.location.line, column: loc.location.column + 1, text: message || loc.text };
  }
}

function codeFrame(l: SyntaxLocation): string | undefined {
  try {
    const source = readFileSync(l.path, 'utf8');
    return codeFrameColumns(source, { start: { line: l.line, column: l.column } }, { highlightCode: false, linesAbove: 2, linesBelow: 1 });
  } catch {
    return undefined;
  }
}
