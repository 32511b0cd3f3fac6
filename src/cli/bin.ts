#!/usr/bin/env node
/**
 * The `steadystate` command: package.json `bin` points at this file's build
 * (dist/src/cli/bin.js); in a checkout, bin/steadystate.js runs it from source. It hands off to
 * `run` at once (vitest's one-line CLI entry). tsx is not registered here: `--help` must start
 * fast (SPEC §7, a CI gate pays start-up on every call), and load-module.ts registers it, once,
 * before the first user module is imported. The CLI's own modules are then already in node's
 * module cache under the same URLs the user's `import 'steadystate'` resolves to, so there is one
 * copy of steadystate in the process.
 * @packageDocumentation
 */
import { endChildProcesses, markDescendants } from '../host/child-processes.js';
import { exitWithVerdict, lockProcessExit, takeStrayExits } from '../host/exit-lock.js';
import { processIo } from './io.js';
import { endLauncherChannel } from './launcher-channel.js';
import { restoreWritten } from './written-files.js';
import { run } from './main.js';

// the exit code comes only from the verdict: user code's process.exit is recorded, never obeyed
lockProcessExit();
// every process started from here on carries this run's token: found at the end even when a double fork took it out of the process tree
markDescendants();
const io = processIo();
let code = await run(process.argv.slice(2), io);
for (const stray of takeStrayExits()) {
  process.stderr.write(`steadystate: code outside any run called ${stray.call}; it was refused (the exit code is the verdict's)${stray.stack ? `\n${stray.stack.split('\n').slice(1, 4).join('\n')}` : ''}\n`);
  if (code === 0) code = 1;
}
// worker threads, msw or user code may hold handles open: exit once output is flushed; processes
// user code started end with the command (a detached one could rewrite its files afterwards)
io.stdout.write('', () => process.stderr.write('', () => {
  endChildProcesses();
  // what one of them rewrote before it was ended is put back as the command wrote it
  const restored = restoreWritten();
  if (restored.length > 0) process.stderr.write(`steadystate: a process the checked code started rewrote or deleted ${restored.join(', ')} after steadystate wrote ${restored.length === 1 ? 'it' : 'them'}; put back as written.\n`);
  // the launcher (bin/steadystate.js) copies stdout up to this mark; a child that exits without it was ended by other code
  endLauncherChannel();
  exitWithVerdict(code);
}));
