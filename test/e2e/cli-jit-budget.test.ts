import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { bin, fixture, runCli, tempDir, type CliRun } from './cli-helpers.js';

/**
 * The CLI's child runs with 4× V8's TurboFan interrupt budget (bin/steadystate.js JIT_FLAGS): a
 * check of a few hundred runs was mostly compiler work at the default budget. Pinned here so the
 * flag is not lost in a launcher change; only on V8 11, where the flag is known to exist.
 */
const v8Major = Number(process.versions.v8.split('.')[0]);

function execArgvOf(r: CliRun): string[] {
  const line = r.stderr.split('\n').find((l) => l.startsWith('EXEC-ARGV '));
  expect(line, `stdout: ${r.stdout}\nstderr: ${r.stderr}`).toBeDefined();
  return JSON.parse(line!.slice('EXEC-ARGV '.length)) as string[];
}

describe("the CLI child's V8 flags", () => {
  it.runIf(v8Major === 11)("raises the TurboFan interrupt budget for the checked code's process", async () => {
    // the checkout's bin: the test build's preload (--import) would be in the child's execArgv too
    const r = await runCli(['check', fixture('exec-argv.ts'), '--runs', '1', '--seed', '1', '--properties', 'convergence'], { sources: true });
    expect(r.code, r.stderr).toBe(0);
    expect(execArgvOf(r)).toEqual(['--interrupt-budget=270336']);
  }, 60_000);

  it.runIf(v8Major === 11)("puts a budget the user gave node after its own, so the user's wins", async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, CI: 'true', NO_COLOR: '1' };
    for (const k of Object.keys(env)) if (k.startsWith('VITEST')) delete env[k];
    const r = await new Promise<CliRun>((resolve, reject) => {
      const child = spawn(process.execPath, ['--interrupt-budget=1000', bin, 'check', fixture('exec-argv.ts'), '--runs', '1', '--seed', '1', '--properties', 'convergence'], { cwd: tempDir(), env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    expect(r.code, r.stderr).toBe(0);
    expect(execArgvOf(r)).toEqual(['--interrupt-budget=270336', '--interrupt-budget=1000']);
  }, 60_000);
});
