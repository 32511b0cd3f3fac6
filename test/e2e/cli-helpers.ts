import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { PassThrough } from 'node:stream';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect, inject } from 'vitest';
import { run } from '../../src/cli/main.js';

/** Helpers for the CLI end-to-end tests: the real `bin/steadystate.js` in a child process. */

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** The checkout's bin: it runs the TypeScript sources through tsx. */
export const bin = join(root, 'bin/steadystate.js');

/**
 * node's arguments before the CLI's own: the test build's bin (test/cli-build/global-setup.ts:
 * the JavaScript build laid out as the published package, built once per suite run, whose
 * preload makes a fixture's import of the engine's sources load that build's copy), or with
 * `sources` the checkout's bin on the TypeScript sources.
 */
export function cliArgv(sources = false): string[] {
  if (sources) return [bin];
  const build = inject('cliBuild');
  return ['--import', pathToFileURL(build.preload).href, build.bin];
}
export const fixture = (name: string): string => join(root, 'test/e2e/cli-fixtures', name);

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI with `args`, in `cwd` (a fresh temp dir by default), never on a TTY: the test
 * build's, or the checkout's on the sources with `sources` (see {@link cliArgv}).
 */
export function runCli(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; sources?: boolean } = {}): Promise<CliRun> {
  const cwd = options.cwd ?? tempDir();
  return new Promise((resolvePromise, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, CI: 'true', NO_COLOR: '1', ...options.env };
    // the child is a user's shell, not a vitest worker
    for (const k of Object.keys(env)) if (k.startsWith('VITEST')) delete env[k];
    const child = spawn(process.execPath, [...cliArgv(options.sources), ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`steadystate ${args.join(' ')} did not finish within ${options.timeoutMs ?? 120_000} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'steadystate-cli-'));
}

/** Exit code 2, nothing on stdout, one paragraph on stderr naming the fix, never a stack. */
export function expectUsageError(r: CliRun, ...mentions: (string | RegExp)[]): void {
  expect(r.code, `stdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(2);
  expect(r.stdout).toBe('');
  const text = r.stderr.trimEnd();
  expect(text.split('\n'), 'one paragraph').toHaveLength(1);
  expect(text).not.toMatch(/^\s+at /m);
  // a position in a module: the sources' .ts or the build's .js
  expect(text).not.toMatch(/\.[cm]?[jt]s:\d+:\d+/);
  expect(text).toMatch(/--help/);
  for (const m of mentions) expect(text).toMatch(m);
}

/** Runs the CLI in-process (same code as the bin, no child process), capturing its output. */
export async function runCliInProcess(args: readonly string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.on('data', (d: Buffer) => (stdout += d.toString()));
  err.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await run(args, { stdout: out, stderr: err, cwd, env: { ...process.env, CI: 'true', NO_COLOR: '1' } });
  return { code, stdout, stderr };
}

/**
 * `web.ts` in `dir`: `prelude`, then a ReplicaSet controller `web` that hot-loops on a status
 * counter (bumped every 100 virtual ms, as cli-fixtures/hostile/buggy.ts: not on its own write's
 * event, which looped at ~1000 writes/s, most of these tests' time) unless the JS expression
 * `fixed` is true (then it writes status once), with checkOptions. The hostile-replay tests vary
 * the prelude and the condition.
 */
export function hotLoopModule(dir: string, prelude: string, fixed: string): string {
  const path = join(dir, 'web.ts');
  writeFileSync(
    path,
    `import { defineController } from ${JSON.stringify(join(root, 'src/index.js'))};
${prelude}
export const checkOptions = { objects: { kind: 'ReplicaSet', spec: [{ replicas: 2 }], status: { replicas: 0 } } };
export const web = defineController({
  name: 'web',
  for: 'ReplicaSet',
  async reconcile(ctx) {
    const rs = await ctx.client.tryGet<{ replicas: number }, { replicas?: number; observedGeneration?: number; ticks?: number; at?: number }>('ReplicaSet', ctx.key);
    if (!rs) return;
    if (${fixed}) {
      if (rs.status.replicas === rs.spec.replicas && rs.status.observedGeneration === rs.metadata.generation) return;
      await ctx.client.updateStatus({ ...rs, status: { replicas: rs.spec.replicas, observedGeneration: rs.metadata.generation } });
      return;
    }
    const now = ctx.clock.now();
    if (now - (rs.status.at ?? -Infinity) >= 100) await ctx.client.updateStatus({ ...rs, status: { replicas: rs.spec.replicas, observedGeneration: rs.metadata.generation, ticks: (rs.status.ticks ?? 0) + 1, at: now } });
    return { requeueAfter: 100 };
  },
});
`,
  );
  return path;
}
