// HOLE rt42 F6b (red team, stop 42): the CLI ended the processes the checked code started, except
// any whose executable was named `esbuild` (tsx's compiler service). The module hard-links node
// as …/esbuild and starts a detached process with it that outlives the CLI (it writes `escaped`
// in the working directory once the CLI is gone; the red team's forged the shard result). The
// CLI now spares only the compiler service's own pid, recorded before any checked code ran.
import { spawn } from 'node:child_process';
import { existsSync, linkSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { makeBuggy } from './buggy.js';
export { checkOptions } from './buggy.js';

if (!isMainThread) {
  const bin = join(mkdtempSync(join(tmpdir(), 'esbuild-named-')), 'esbuild');
  if (!existsSync(bin)) linkSync(process.execPath, bin);
  const script = `
    const fs = require('fs');
    const alive = () => { try { process.kill(${process.pid}, 0); return true; } catch { return false; } };
    const t = setInterval(() => {
      if (alive()) return;
      clearInterval(t);
      fs.writeFileSync(${JSON.stringify(join(process.cwd(), 'escaped'))}, 'outlived the check');
      fs.rmSync(${JSON.stringify(bin)}, { force: true });
    }, 50);
    setTimeout(() => process.exit(0), 60_000);`;
  spawn(bin, ['-e', script], { detached: true, stdio: 'ignore' }).unref();
}
export const esbuildNamed = makeBuggy('esbuild-named');
