import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onHarnessExit } from '../host/exit-lock.js';

let dir: string | undefined;
let files = 0;

/**
 * Writes a kubeconfig to a file of its own (under one temporary folder per host process,
 * removed when the process exits) and returns its path and the function that deletes it: what
 * a hosted process's `KUBECONFIG` points at, so `loadFromDefault()` finds its cluster.
 * @internal
 */
export function writeKubeconfigFile(name: string, text: string): { path: string; remove(): void } {
  if (dir === undefined) {
    const d = mkdtempSync(join(tmpdir(), 'steadystate-kubeconfig-'));
    dir = d;
    onHarnessExit(() => rmSync(d, { recursive: true, force: true }));
  }
  const path = join(dir, `${name.replace(/[^A-Za-z0-9_.-]+/g, '-')}-${++files}.kubeconfig`);
  writeFileSync(path, text, 'utf8');
  let removed = false;
  return {
    path,
    remove() {
      if (removed) return;
      removed = true;
      try {
        unlinkSync(path);
      } catch {
        // already gone (the folder is removed at exit anyway)
      }
    },
  };
}
