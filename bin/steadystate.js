#!/usr/bin/env node
// The `steadystate` command. Registers tsx first, globally (tsx's register(), not tsImport()):
// users' controller modules are TypeScript, and with global hooks their `import 'steadystate'`
// resolves to the very modules this CLI runs, so there is one copy of steadystate in the process.
import { existsSync } from 'node:fs';
import { register } from 'tsx/esm/api';

register();
globalThis[Symbol.for('steadystate.tsx-registered')] = true;

// from a checkout the sources run directly; an installed package runs its build
const source = new URL('../src/cli/main.ts', import.meta.url);
const entry = existsSync(source) ? source : new URL('../dist/src/cli/main.js', import.meta.url);
const { run } = await import(entry.href);
const code = await run(process.argv.slice(2));
// worker threads, msw or user code may hold handles open: exit once output is flushed
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
