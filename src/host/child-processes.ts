import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { basename } from 'node:path';

/**
 * Ends the child processes of this process (and the process groups they lead), except esbuild's
 * service (tsx compiles through it). Code under test can start processes at import or from a
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
    if (isEsbuildService(child.pid)) continue;
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

function isEsbuildService(pid: number): boolean {
  try {
    return basename(readlinkSync(`/proc/${pid}/exe`)) === 'esbuild';
  } catch {
    return false;
  }
}
