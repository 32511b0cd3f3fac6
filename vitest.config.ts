import { relative } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// The suite's checks run in this process's worker threads, mostly short and cold: at V8's default
// TurboFan budget the compiler threads cost about as much CPU as the checks (see the CLI's
// JIT_FLAGS in bin/steadystate.js, which the CLI tests' child processes get). 4× the budget:
// test/e2e/bug-zoo.test.ts −18% CPU (h48 speed). Set before the workers start; flags are
// process-wide. Only on V8 11, where the flag is known (elsewhere V8 prints an error for it).
if (/^11\./.test(process.versions.v8)) setFlagsFromString('--interrupt-budget=270336');

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
  // a fetch saved at module load is whatever the files before it left in globalThis.fetch
  'test/robustness/network.test.ts',
];

/**
 * The longest files (about a minute each on a 2-CPU machine), started first in their project. With
 * no duration cache (a clean CI clone) vitest starts the largest files first, and these are small:
 * the two corpus gates began last and ran alone for the final minute (stop 35: 548 s of 530 s of
 * other work). Longest first leaves the short files to fill in beside them.
 */
const HEAVY = [
  'test/e2e/bug-zoo.test.ts',
  'test/e2e/package.test.ts',
  'test/e2e/cli-check.test.ts',
  'test/e2e/cli-hostile.test.ts',
  'test/e2e/false-positives-a.test.ts',
  'test/e2e/false-positives-b.test.ts',
  'test/e2e/story-false-positives.test.ts',
  'test/e2e/false-positives-guided.test.ts',
  'test/e2e/operator-examples.test.ts',
  'test/e2e/cli-usage.test.ts',
  'test/e2e/cli-merge.test.ts',
  'test/robustness/cli-modules.test.ts',
  'test/e2e/cli-robustness.test.ts',
  'test/e2e/cli-program.test.ts',
  'test/e2e/cli-hostile-replay.test.ts',
  'test/e2e/cli-hostile-fork.test.ts',
  'test/e2e/cli-hostile-corpus.test.ts',
];

/**
 * Files that need Debian packages .ci/run installs in the background while the suite runs
 * (test/helpers/system-packages.ts): started last in their project, when apt has long finished.
 */
const LAST = ['test/conformance/kubectl.test.ts', 'test/e2e/report-html.test.ts'];

class HeavyFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification): number => {
      const file = relative(fileURLToPath(new URL('.', import.meta.url)), f.moduleId).split('\\').join('/');
      const i = HEAVY.indexOf(file);
      return i >= 0 ? i : LAST.includes(file) ? HEAVY.length + 1 : HEAVY.length;
    };
    // projects keep the order vitest gave them (they run one after the other)
    const project = new Map<string, number>();
    for (const f of sorted) if (!project.has(f.project.name)) project.set(f.project.name, project.size);
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => project.get(a.f.project.name)! - project.get(b.f.project.name)! || rank(a.f) - rank(b.f) || a.i - b.i)
      .map(({ f }) => f);
  }
}

export default defineConfig({
  resolve: {
    alias: [
      { find: /^steadystate\/vitest$/, replacement: src('./src/vitest/index.ts') },
      { find: /^steadystate$/, replacement: src('./src/index.ts') },
    ],
  },
  test: {
    // the CLI the end-to-end tests start, built once per run (see the file)
    globalSetup: ['test/cli-build/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'threads',
    // vitest's default is one worker less than the CPUs: one worker on a 2-CPU CI machine, with the
    // second CPU idle while a test waits on a child process (the suite took ~10 min so). Three on
    // two CPUs: many files spend their time waiting on CLI processes they spawned (stop 43, one
    // clean clone: 624 s with two workers, 565 s with three)
    maxWorkers: 3,
    sequence: { sequencer: HeavyFirst },
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
