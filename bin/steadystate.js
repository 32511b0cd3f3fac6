#!/usr/bin/env node
// The `steadystate` command in a checkout: runs the TypeScript sources. tsx is registered first,
// globally (tsx's register(), not tsImport()), so the CLI's .ts modules load and a user's module
// importing them shares one copy of steadystate. The published package's bin is the build of
// src/cli/bin.ts (dist/src/cli/bin.js), which registers tsx only when it loads a user's module.
import { register } from 'tsx/esm/api';

register();
globalThis[Symbol.for('steadystate.tsx-registered')] = true;
await import('../src/cli/bin.ts');
