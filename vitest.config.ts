import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Tests and examples import the package by name, as users do.
const src = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^steadystate\/vitest$/, replacement: src('./src/vitest/index.ts') },
      { find: /^steadystate$/, replacement: src('./src/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'threads',
    // vitest's default is one worker less than the CPUs: one worker on a 2-CPU CI machine, with the
    // second CPU idle while a test waits on a child process (the suite took ~10 min so)
    maxWorkers: 2,
  },
});
