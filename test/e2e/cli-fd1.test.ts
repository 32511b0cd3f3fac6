import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliArgv, fixture, runCli, tempDir } from './cli-helpers.js';

/**
 * Red team H7 (stop 43): code under test that writes file descriptor 1 itself (fs.writeSync(1, …),
 * pino's sonic-boom, a child process with inherited stdio) must not reach the CLI's stdout: the
 * verdict is the first line there, `--json` parses, and the forged text shows on stderr. The
 * fixture (cli-fixtures/hostile/writes-fd1.ts) writes fd 1, fd 3 and a child's inherited stdout,
 * at import and from a reconcile.
 */
const CONCURRENT_TIMEOUT = 180_000;
const module = fixture(join('hostile', 'writes-fd1.ts'));

function expectForgedOnStderr(stderr: string, where: readonly string[]): void {
  for (const w of where) expect(stderr, w).toContain(`${w}: PASS forged`);
}

describe.concurrent('writes to fd 1 by the checked code cannot corrupt the CLI output (red team H7, stop 43)', () => {
  it('check --json of a correct controller that writes fd 1: exit 0, stdout is the one JSON object, the forged lines are on stderr', async () => {
    const dir = tempDir();
    const r = await runCli(['check', module, '--controller', 'writes-fd1-correct', '--runs', '3', '--seed', '1', '--json', '--report-dir', dir], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const parsed = JSON.parse(r.stdout) as { ok: boolean; controller: string };
    expect(parsed).toMatchObject({ ok: true, controller: 'writes-fd1-correct' });
    expect(r.stdout).not.toContain('forged');
    expectForgedOnStderr(r.stderr, ['import', 'import on fd 3', 'import from a child', 'reconcile', 'reconcile on fd 3', 'reconcile from a child']);
  }, CONCURRENT_TIMEOUT);

  it("check of a buggy controller that writes fd 1 from the CLI's own thread (--workers 0): exit 1, the verdict is the first stdout line, nothing forged on stdout", async () => {
    const dir = tempDir();
    const r = await runCli(['check', module, '--controller', 'writes-fd1-buggy', '--runs', '2', '--seed', '1', '--workers', '0', '--shrink-time-limit', '200', '--report-dir', dir], { cwd: dir });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout.split('\n')[0]).toMatch(/^FAIL writes-fd1-buggy fails no-hot-loop/);
    expect(r.stdout).not.toContain('forged');
    expectForgedOnStderr(r.stderr, ['import', 'reconcile', 'reconcile from a child']);
    // the replay loads the module in the CLI's own thread too
    const report = readdirSync(dir).find((f) => /^writes-fd1-buggy-.*\.json$/.test(f));
    expect(report).toBeDefined();
    const replay = await runCli(['replay', join(dir, report!), '--json'], { cwd: dir });
    expect(replay.code, replay.stderr).toBe(1);
    expect((JSON.parse(replay.stdout) as { ok: boolean }).ok).toBe(false);
    expectForgedOnStderr(replay.stderr, ['import', 'import on fd 3']);
  }, CONCURRENT_TIMEOUT);

  it('plain check of the correct controller: exit 0, the first stdout line is its PASS verdict', async () => {
    const dir = tempDir();
    const r = await runCli(['check', module, '--controller', 'writes-fd1-correct', '--runs', '2', '--seed', '2', '--report-dir', dir], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/^PASS writes-fd1-correct: 2 runs/);
    expect(r.stdout).not.toContain('forged');
  }, CONCURRENT_TIMEOUT);

  it('a module that ends the process with process.reallyExit(0) at import gets exit 1, never a silent pass', async () => {
    const dir = tempDir();
    const r = await runCli(['check', fixture(join('hostile', 'really-exit.ts')), '--runs', '2', '--seed', '1', '--workers', '0', '--report-dir', dir], { cwd: dir });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/exited 0 without finishing its output/);
  }, CONCURRENT_TIMEOUT);

  it.each(['SIGTERM', 'SIGKILL'] as const)('%s to steadystate ends the check it runs: the command ends by that signal and leaves no process behind', async (sent) => {
    const dir = tempDir();
    const env: NodeJS.ProcessEnv = { ...process.env, CI: 'true', NO_COLOR: '1' };
    for (const k of Object.keys(env)) if (k.startsWith('VITEST')) delete env[k];
    const cli = spawn(process.execPath, [...cliArgv(), 'check', fixture('level.ts'), '--runs', '100000', '--seed', '1', '--report-dir', dir], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    // the check is running once it reports progress
    await new Promise<void>((resolve) => cli.stderr.once('data', () => resolve()));
    const pids = [cli.pid!, ...descendants(cli.pid!)];
    const ended = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => cli.on('exit', (code, signal) => resolve([code, signal])));
    cli.kill(sent);
    const [code, signal] = await ended;
    expect(signal, `code ${code}`).toBe(sent);
    for (let i = 0; i < 100 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, 100));
    expect(pids.filter(alive)).toEqual([]);
  }, CONCURRENT_TIMEOUT);
});

function descendants(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(name), ...descendants(Number(name)));
    } catch {
      // gone
    }
  }
  return out;
}

function alive(pid: number): boolean {
  if (!existsSync(`/proc/${pid}`)) return false;
  try {
    // a zombie (not yet reaped by its parent) has ended
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
