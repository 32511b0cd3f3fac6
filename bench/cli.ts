import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchRow } from './types.js';

/**
 * What a CI gate pays per invocation: the CLI's start-up (node + tsx + loading steadystate) and
 * a small end-to-end check of a TypeScript module, both as a user runs them (a child process).
 */
export async function benchCli(): Promise<BenchRow[]> {
  const bin = fileURLToPath(new URL('../bin/steadystate.js', import.meta.url));
  const target = fileURLToPath(new URL('./workers-target.ts', import.meta.url));
  const cwd = mkdtempSync(join(tmpdir(), 'steadystate-bench-cli-'));
  const env = { ...process.env, CI: 'true', NO_COLOR: '1' };
  const median = (args: string[], n: number): number => {
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const r = spawnSync(process.execPath, [bin, ...args], { cwd, env, encoding: 'utf8' });
      times.push(performance.now() - t0);
      if (r.status !== 0) throw new Error(`steadystate ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    }
    return times.sort((a, b) => a - b)[Math.floor(n / 2)]!;
  };
  const version = median(['--version'], 5);
  const check = median(['check', target, '--runs', '100', '--seed', '1', '--properties', 'convergence,idempotence,no-hot-loop', '--report-dir', join(cwd, 'reports')], 3);
  return [
    { name: 'CLI start-up (steadystate --version, median of 5)', value: version, unit: 'ms' },
    { name: 'CLI check of a .ts module, 100 scenarios, reports written (median of 3)', value: check, unit: 'ms' },
  ];
}
