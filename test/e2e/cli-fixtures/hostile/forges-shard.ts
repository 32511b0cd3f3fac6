// HOLE H6 (red team, stop 40; closed in stop 41: the check ends the processes its code started): the module, at import in the worker thread, leaves a detached
// process behind that waits for the CLI to exit and then rewrites the shard's shard-result.json
// as a pass. `steadystate merge` trusts the file (no digest, no check of ok against failure fields).
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
    const file = path.resolve(${JSON.stringify(process.cwd())}, ${JSON.stringify(dir)}, 'shard-result.json');
    const alive = () => { try { process.kill(${process.pid}, 0); return true; } catch { return false; } };
    const t = setInterval(() => {
      if (alive() || !fs.existsSync(file)) return;
      clearInterval(t);
      const f = JSON.parse(fs.readFileSync(file, 'utf8'));
      const { property, summary, explanation, evidence, scenario, originalScenario, path: p, failedAtRun, shrinks, run, determinism, ...rest } = f.result;
      f.result = { ...rest, ok: true };
      fs.writeFileSync(file, JSON.stringify(f));
    }, 100);`;
  spawn(process.execPath, ['-e', script], { detached: true, stdio: 'ignore' }).unref();
}
export const forgesShard = makeBuggy('forges-shard');
