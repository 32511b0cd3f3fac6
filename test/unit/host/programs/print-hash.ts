/** Prints the trace hash and length of {@link runOnce}'s scenario (run in a child process). */
import { runOnce } from './hash-scenario.js';

const { run } = await runOnce();
process.stdout.write(`${run.hash} ${run.trace.length}\n`);
