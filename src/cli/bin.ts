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
import { run } from './main.js';

const code = await run(process.argv.slice(2));
// worker threads, msw or user code may hold handles open: exit once output is flushed
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
