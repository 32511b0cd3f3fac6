import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

// Tests and examples import the package by name, as users do.
const src = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/** Test files that must not share a module graph with others (see `projects`). */
const ISOLATED = [
  'test/unit/downstream/net-guard.test.ts',
  'test/unit/downstream/install-global-fetch.test.ts',
  'test/e2e/cli-search.test.ts',
  'test/e2e/cli-exits.test.ts',
  'test/e2e/vitest-matchers.test.ts',
  'test/readme.test.ts',
  'test/readme-story.test.ts',
  'test/robustness/process-sabotage.test.ts',
  'test/robustness/determinism-sources.test.ts',
  'test/unit/host/run-guard.test.ts',
];

export default defineConfig({
  resolve: {
    alias: [
      { find: /^steadystate\/vitest$/, replacement: src('./src/vitest/index.ts') },
      { find: /^steadystate$/, replacement: src('./src/index.ts') },
    ],
  },
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'threads',
    // vitest's default is one worker less than the CPUs: one worker on a 2-CPU CI machine, with the
    // second CPU idle while a test waits on a child process (the suite took ~10 min so)
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        // a fresh module graph per file: these hold process-wide state on purpose (the CLI run
        // in-process keeps its network guard and pinned fetch for the process's life, as the
        // real CLI does) or test that state itself
        test: { name: 'isolated', include: ISOLATED, isolate: true },
      },
      {
        extends: true,
        // one module graph per worker: importing the engine again for each of ~200 files cost
        // 170 s of a 600 s suite on a 2-CPU machine
        test: { name: 'shared', include: ['test/**/*.test.ts', 'examples/**/*.test.ts'], exclude: [...configDefaults.exclude, ...ISOLATED], isolate: false },
      },
    ],
  },
});
