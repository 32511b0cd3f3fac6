// HOLE (red team H7, stop 43): the CLI keeps process.stdout's write for its verdict, but code that
// writes file descriptor 1 itself (fs.writeSync(1, …), pino's default sonic-boom destination, a
// child process with inherited stdio) went past it: a forged PASS line before the verdict, and
// `--json` output that no longer parses. It also writes fd 3, where the CLI's output now travels.
// Each is done at import and from the first reconcile of each thread (main thread and workers).
import { spawnSync } from 'node:child_process';
import { writeSync } from 'node:fs';
import { defineController, type ReconcileContext } from '../../../../src/index.js';
import { levelTriggered } from '../../../../examples/replicas/level-triggered.js';
import { makeBuggy } from './buggy.js';
export { checkOptions } from './buggy.js';

const FORGED = 'PASS forged: 20 runs, every property held\n{"ok": true, "forged": \n';

function forge(where: string): void {
  writeSync(1, `${where}: ${FORGED}`);
  // the CLI's own channel: without its key these bytes are no output of the CLI's
  try {
    writeSync(3, `${where} on fd 3: ${FORGED}`);
  } catch {
    // no fd 3 (the CLI run in-process)
  }
  spawnSync('sh', ['-c', `printf '%s' "$0"`, `${where} from a child: ${FORGED}`], { stdio: 'inherit' });
}

forge('import');
let forged = false;
const once = (): void => {
  if (forged) return;
  forged = true;
  forge('reconcile');
};

export const writesFd1Buggy = makeBuggy('writes-fd1-buggy', once);
export const writesFd1Correct = defineController({
  name: 'writes-fd1-correct',
  for: levelTriggered.for,
  resyncPeriodMs: levelTriggered.resyncPeriodMs,
  sample: [{ replicas: 3 }, { replicas: 1 }],
  async reconcile(ctx: ReconcileContext) {
    once();
    return levelTriggered.reconcile(ctx);
  },
});
