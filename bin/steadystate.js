#!/usr/bin/env node
// The `steadystate` command (package.json `bin`). In a checkout (src/ present, right after
// `npm ci`, no build needed) it runs the TypeScript sources: tsx is registered first, globally
// (tsx's register(), not tsImport()), so the CLI's .ts modules load and a user's module importing
// them shares one copy of steadystate. In the published package (no src/) it runs the build,
// dist/src/cli/bin.js, which registers tsx only when it loads a user's module.
import { existsSync } from 'node:fs';

if (existsSync(new URL('../src/cli/bin.ts', import.meta.url))) {
  const { register } = await import('tsx/esm/api');
  register();
  globalThis[Symbol.for('steadystate.tsx-registered')] = true;
  await import(new URL('../src/cli/bin.ts', import.meta.url).href);
} else {
  await import(new URL('../dist/src/cli/bin.js', import.meta.url).href);
}
