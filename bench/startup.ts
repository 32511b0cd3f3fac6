import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConsumerProject, packPackage, RegistryUnavailable, userEnv } from '../test/e2e/consumer-project.js';
import type { BenchRow } from './types.js';

/**
 * Start-up of the installed CLI (issue 7): `npx steadystate --help` in a fresh project that
 * installed the packed tarball, as a CI job calls it. Also the CLI alone (its bin run by node,
 * without npx's own start-up) and npx's floor (`npx --version`), so a regression is attributed to
 * the right side.
 */
export async function benchStartup(): Promise<BenchRow[]> {
  const packDir = mkdtempSync(join(tmpdir(), 'steadystate-bench-pack-'));
  let project: string | undefined;
  try {
    const tarball = await packPackage(packDir);
    try {
      project = (await createConsumerProject(tarball, [])).dir;
    } catch (err) {
      if (!(err instanceof RegistryUnavailable)) throw err;
      process.stderr.write(`(skipping benchStartup: ${err.message})\n`);
      return [];
    }
    const cwd = project;
    const env = userEnv();
    const median = (cmd: string, args: string[], n: number): number => {
      const times: number[] = [];
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8' });
        times.push(performance.now() - t0);
        if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
      }
      return times.sort((a, b) => a - b)[Math.floor(n / 2)]!;
    };
    median('npx', ['steadystate', '--help'], 1); // warm the file cache
    return [
      { name: 'installed CLI start-up: npx steadystate --help (median of 7)', value: median('npx', ['steadystate', '--help'], 7), unit: 'ms', target: '< 500 ms' },
      { name: 'installed CLI start-up without npx: node_modules/.bin/steadystate --help (median of 7)', value: median(join(cwd, 'node_modules/.bin/steadystate'), ['--help'], 7), unit: 'ms' },
      { name: "npx's own floor: npx --version (median of 7)", value: median('npx', ['--version'], 7), unit: 'ms' },
    ];
  } finally {
    for (const d of [packDir, project]) if (d) rmSync(d, { recursive: true, force: true });
  }
}
