/**
 * The operator programs of examples/operators/, checked the way the CLI checks them
 * (`steadystate check --program …`), with every default property: each buggy variant must fail
 * (and shrink), each correct one must pass 300 runs. Prints one row per check. Heavy: a bench,
 * not a test (`npm run bench hostedexamples`).
 */
import { check, defineProgram, type CheckOptions, type ProgramOptions } from '../src/index.js';
import type { BenchRow } from './types.js';

const deployment = (image: string, replicas: number) => ({ replicas, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } } });

interface Example {
  name: string;
  program: (variant: 'buggy' | 'correct') => ProgramOptions;
  options: CheckOptions;
  /** The property the buggy variant must fail. */
  catches: string;
}

const examples: Example[] = [
  {
    name: 'template-hash',
    program: (v) => ({ entry: `examples/operators/template-hash/${v}.ts`, for: 'Deployment', name: 'template-hash', sample: [deployment('nginx:1.27', 1), deployment('nginx:1.28', 2)] }),
    options: {},
    catches: 'same-end-state',
  },
  {
    name: 'hash-applier',
    program: (v) => ({ entry: `examples/operators/hash-applier/${v}.ts`, for: 'Deployment', name: 'hash-applier', sample: [deployment('nginx:1.27', 1), deployment('nginx:1.28', 2)] }),
    options: {},
    catches: 'no-hot-loop',
  },
  {
    name: 'website-operator',
    program: (v) => ({ entry: `examples/operators/website-operator/${v}.ts`, for: 'Website', name: 'website', resources: [{ kind: 'Website', plural: 'websites', group: 'example.com', version: 'v1', namespaced: true }], sample: [{ title: 'home', replicas: 1 }, { title: 'blog', replicas: 2 }] }),
    options: {},
    catches: 'never-exits',
  },
  {
    name: 'ttl-expirer',
    program: (v) => ({ entry: `examples/operators/ttl-expirer/${v}.ts`, for: 'Sandbox', name: 'ttl-expirer', resources: [{ kind: 'Sandbox', plural: 'sandboxes', group: 'example.com', version: 'v1', namespaced: true }], sample: [{ ttlSeconds: 3 }, { ttlSeconds: 20 }] }),
    options: {},
    catches: 'same-end-state',
  },
  {
    name: 'secret-copier',
    program: (v) => ({ entry: `examples/operators/secret-copier/${v}.ts`, for: 'Secret', name: 'secret-copier' }),
    options: { story: 'examples/operators/secret-copier/story.yaml' },
    catches: 'never-exits',
  },
];

export async function benchHostedExamples(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const e of examples) {
    let t0 = performance.now();
    const buggy = await check(defineProgram(e.program('buggy')), { ...e.options, runs: 100, seed: 1 });
    const caught = !buggy.ok && buggy.property === e.catches;
    if (!buggy.ok) process.stderr.write(`${e.name} (buggy): ${buggy.property}, run ${buggy.failedAtRun}, ${buggy.shrinks} shrink steps\n  ${buggy.summary}\n${buggy.explanation.split('\n').map((l) => `    ${l}`).join('\n')}\n`);
    rows.push({ name: `${e.name} buggy: caught by ${e.catches} (1 = yes)`, value: caught ? 1 : 0, unit: '', target: `${((performance.now() - t0) / 1000).toFixed(1)} s, ${buggy.ok ? 'passed!' : `${buggy.property} after ${buggy.failedAtRun} runs, shrunk in ${buggy.shrinks}`}` });
    t0 = performance.now();
    const correct = await check(defineProgram(e.program('correct')), { ...e.options, runs: 300, seed: 2 });
    if (!correct.ok) process.stderr.write(`${e.name} (correct) FAILED ${correct.property}: ${correct.summary}\n${correct.explanation}\n`);
    rows.push({ name: `${e.name} correct: runs passed of 300`, value: correct.ok ? correct.runs : correct.failedAtRun - 1, unit: 'runs', target: `${((performance.now() - t0) / 1000).toFixed(1)} s${correct.ok ? '' : `, failed ${correct.property}`}` });
  }
  return rows;
}
