import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';

/**
 * The environment variable every process the CLI starts inherits, holding this CLI's token (after
 * the tokens of CLIs it runs under, comma-separated): {@link endChildProcesses} finds by it the
 * processes that left the CLI's process tree (red team F6, stop 43).
 * @internal
 */
export const RUN_TOKEN_ENV = 'STEADYSTATE_RUN_TOKEN';
/** This CLI's token, once {@link markDescendants} ran. */
let token: string | undefined;

/**
 * Marks every process this process starts from now on, and what those start in turn: they
 * inherit {@link RUN_TOKEN_ENV} with a token of this run (random, fresh per CLI). A process that
 * a double fork re-parented to init (a shell starting it with `setsid … &`, `nohup`, a daemon's
 * fork) is no child of the CLI any more, but its environment still names the run. Call it once,
 * in the CLI's main thread, before any checked code is loaded (worker threads copy the
 * environment when they start). What a process with the same uid can do against it (start its
 * child with an emptied environment: `env -i`, `spawn(…, { env: {} })`) is documented in the
 * README.
 * @internal
 */
export function markDescendants(): void {
  if (token !== undefined || !isMainThread) return;
  token = randomBytes(16).toString('hex');
  const outer = process.env[RUN_TOKEN_ENV];
  process.env[RUN_TOKEN_ENV] = outer ? `${outer},${token}` : token;
}

/** The pids of the compiler's service (esbuild, which tsx compiles through), listed before any checked code ran ({@link warmUpCompiler}). */
const compiler = new Set<number>();
let warmed = false;

/**
 * Starts the compiler service tsx compiles TypeScript through (esbuild, one process the main
 * thread and the worker threads share) and records its pid, before any checked code runs: only
 * that pid is spared by {@link endChildProcesses}, never a process by its name (a module that
 * named its own executable `esbuild` outlived the check and forged the shard result; red team rt42
 * F6b). The service starts lazily, at tsx's first compile that misses its cache, so the warm-up
 * imports a file that fails to compile (never cached). Main thread only, once, and only where tsx
 * is registered; elsewhere (vitest, a build without tsx) no process is spared.
 * @internal
 */
export async function warmUpCompiler(): Promise<void> {
  if (warmed || !isMainThread || (globalThis as { [k: symbol]: unknown })[Symbol.for('steadystate.tsx-registered')] !== true) return;
  warmed = true;
  let dir: string | undefined;
  try {
    dir = mkdtempSync(join(tmpdir(), 'steadystate-warm-up-'));
    const file = join(dir, 'warm-up.mts');
    writeFileSync(file, 'export const = ;\n');
    await import(pathToFileURL(file).href);
  } catch {
    // the compile error asked for
  } finally {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
  for (const child of childrenOf(process.pid)) if (isEsbuild(child.pid)) compiler.add(child.pid);
}

/**
 * Ends the child processes of this process (and the process groups they lead), except the
 * compiler's service recorded by {@link warmUpCompiler} (tsx compiles through it). Code under test can start processes at import or from a
 * reconcile; the command's own work is done in threads, so a child still running when a check
 * ends is the checked code's. Left alive, a detached one can outlast the CLI and rewrite what it
 * wrote (a shard's result, which `merge` then trusts; red team H6, stop 40): the check's
 * processes end with it, before its reports are written. Linux only (it reads /proc); elsewhere
 * it ends nothing.
 * @returns the pids it signalled
 * @internal
 */
export function endChildProcesses(): number[] {
  const ended: number[] = [];
  // a process being ended may start another meanwhile (it carries the token too): again until none is left
  for (let round = 0; round < 10; round++) {
    const found = [...childrenOf(process.pid), ...markedProcesses()].filter((p) => !compiler.has(p.pid) && p.pid !== process.pid && !ended.includes(p.pid));
    if (found.length === 0) break;
    for (const child of found) {
      try {
        // a detached child leads its own group: its own children go with it
        process.kill(child.pgid === child.pid ? -child.pid : child.pid, 'SIGKILL');
      } catch {
        // gone already
      }
      ended.push(child.pid);
    }
  }
  return ended;
}

/**
 * The processes whose environment carries this CLI's token ({@link markDescendants}): those it
 * started and what they started, wherever they were re-parented. Only processes of this user
 * can be read (and signalled); a zombie's environment reads empty.
 */
function markedProcesses(): ProcessEntry[] {
  if (token === undefined) return [];
  const out: ProcessEntry[] = [];
  for (const name of procEntries()) {
    if (Number(name) === process.pid) continue;
    let env: string;
    try {
      env = readFileSync(`/proc/${name}/environ`, 'latin1');
    } catch {
      continue;
    }
    const at = env.indexOf(`${RUN_TOKEN_ENV}=`);
    if (at < 0 || (at > 0 && env[at - 1] !== '\0')) continue;
    const end = env.indexOf('\0', at);
    const tokens = env.slice(at + RUN_TOKEN_ENV.length + 1, end < 0 ? env.length : end).split(',');
    if (!tokens.includes(token)) continue;
    const entry = statOf(name);
    if (entry) out.push(entry);
  }
  return out;
}

function procEntries(): string[] {
  try {
    return readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return [];
  }
}

/** "pid (comm) state ppid pgrp …" of /proc/<pid>/stat: comm may hold spaces and parentheses, so read after the last ')'. */
function statOf(name: string): (ProcessEntry & { ppid: number }) | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${name}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { pid: Number(name), ppid: Number(fields[1]), pgid: Number(fields[2]) };
}

interface ProcessEntry {
  pid: number;
  pgid: number;
}

function childrenOf(parent: number): ProcessEntry[] {
  const out: ProcessEntry[] = [];
  for (const name of procEntries()) {
    const entry = statOf(name);
    if (entry?.ppid === parent) out.push({ pid: entry.pid, pgid: entry.pgid });
  }
  return out;
}

function isEsbuild(pid: number): boolean {
  try {
    return basename(readlinkSync(`/proc/${pid}/exe`)) === 'esbuild';
  } catch {
    return false;
  }
}
