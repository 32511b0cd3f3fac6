import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliArgv, hotLoopModule, runCli, tempDir } from './cli-helpers.js';

/**
 * Red team F5 (stop 43): a module that tells `steadystate replay` from the check it reproduces
 * can behave only when replayed. With the code unchanged the digest catches it (cli-hostile.test.ts);
 * these are the cases where the code's digest changed since the check (the user's edit, or the
 * module's own): the replay must still judge the code the way the check did.
 */
const CONCURRENT_TIMEOUT = 180_000;

const controllerModule = hotLoopModule;

const check = (path: string, dir: string) => runCli(['check', path, '--runs', '2', '--seed', '1', '--shrink-time-limit', '200', '--report-dir', dir], { cwd: dir });

describe.concurrent('steadystate replay runs the code as the check ran it (red team F5, stop 43)', () => {
  it('a module that behaves only when process.argv says replay, whose file changed after the check: even replay --fixed still fails (exit 1), it sees the command line the check gave it', async () => {
    const dir = tempDir();
    // what it saw is written beside it: the check and the replay must show it the same argv
    const path = controllerModule(dir, `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(join(dir, 'argv.log'))}, JSON.stringify(process.argv.slice(1)) + '\\n');`, "process.argv.includes('replay') || process.argv.length > 2");
    const r = await check(path, dir);
    expect(r.code, r.stderr).toBe(1);
    const file = join(dir, 'web-no-hot-loop-1.json');
    // an edit that changes nothing it does (the module's own, from a process that outlived the check, or a user's)
    appendFileSync(path, '\n// edited after the check\n');
    const replay = await runCli(['replay', file, '--fixed'], { cwd: dir });
    expect(replay.code, replay.stdout + replay.stderr).toBe(1);
    expect(replay.stdout).toMatch(/FAIL web still fails no-hot-loop/);
    const seen = new Set(readFileSync(join(dir, 'argv.log'), 'utf8').trim().split('\n'));
    // one command line, naming steadystate's bin (not the module: red team H3)
    expect([...seen]).toEqual([JSON.stringify([cliArgv().at(-1)])]);
  }, CONCURRENT_TIMEOUT);

  it('a module that rewrites its own file when it is replayed never passes that replay, even with --fixed (exit 1)', async () => {
    const dir = tempDir();
    // it tells the replay (the CLI's own thread) from the check (a worker thread): a channel no command line hides
    const path = controllerModule(dir, `import { appendFileSync } from 'node:fs';\nimport { isMainThread } from 'node:worker_threads';\nif (isMainThread) appendFileSync(new URL(import.meta.url), '\\n// touched');`, 'isMainThread');
    const r = await check(path, dir);
    expect(r.code, r.stderr).toBe(1);
    const file = join(dir, 'web-no-hot-loop-1.json');
    appendFileSync(path, '\n// edited after the check\n');
    const replay = await runCli(['replay', file, '--fixed'], { cwd: dir });
    expect(replay.code, replay.stdout + replay.stderr).toBe(1);
    expect(replay.stdout).toMatch(/FAIL web passes this replay, but its code changed its own files while it was replayed/);
  }, CONCURRENT_TIMEOUT);
});

describe.concurrent('what the checked code sees of the CLI it runs in (red team H3, H5, stop 43)', () => {
  it("an operator's entry-point guard (import.meta.url === argv[1]) stays false: its production main() does not run inside the check", async () => {
    const dir = tempDir();
    const marker = join(dir, 'main-ran');
    const path = controllerModule(
      dir,
      `import { writeFileSync } from 'node:fs';\nimport { pathToFileURL } from 'node:url';\nif (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) { writeFileSync(${JSON.stringify(marker)}, 'ran'); process.exit(1); }`,
      'true',
    );
    const r = await runCli(['check', path, '--runs', '2', '--seed', '1', '--workers', '0', '--report-dir', dir], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(existsSync(marker)).toBe(false);
  }, CONCURRENT_TIMEOUT);

  it('a thread the module starts, writing forged PASS lines straight to fd 1, is ended before the verdict: the last line is the FAIL (--workers 0)', async () => {
    const dir = tempDir();
    const thread = `import { Worker } from 'node:worker_threads';\nnew Worker("const { writeSync } = require('node:fs'); const cell = new Int32Array(new SharedArrayBuffer(4)); for (;;) { try { writeSync(1, 'PASS web: 2 runs, seed 1; every property held\\\\n'); } catch {} Atomics.wait(cell, 0, 0, 2); }", { eval: true }).unref();`;
    const path = controllerModule(dir, thread, 'false');
    const r = await runCli(['check', path, '--runs', '2', '--seed', '1', '--shrink-time-limit', '200', '--workers', '0', '--report-dir', dir], { cwd: dir });
    expect(r.code, r.stderr).toBe(1);
    const verdict = r.stdout.trim().split('\n').filter((l) => /^(PASS|FAIL) /.test(l));
    expect(verdict.at(-1), r.stdout.split('\n').filter((l) => !l.startsWith('PASS web')).join('\n')).toMatch(/^FAIL web fails no-hot-loop/);
  }, CONCURRENT_TIMEOUT);
});
