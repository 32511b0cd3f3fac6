import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';

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
  for (const child of childrenOf(process.pid)) {
    if (compiler.has(child.pid)) continue;
    try {
      // a detached child leads its own group: its own children go with it
      process.kill(child.pgid === child.pid ? -child.pid : child.pid, 'SIGKILL');
      ended.push(child.pid);
    } catch {
      // gone already
    }
  }
  return ended;
}

interface ProcessEntry {
  pid: number;
  pgid: number;
}

function childrenOf(parent: number): ProcessEntry[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: ProcessEntry[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue;
    }
    // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so read after the last ')'
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[1]) === parent) out.push({ pid: Number(name), pgid: Number(fields[2]) });
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
