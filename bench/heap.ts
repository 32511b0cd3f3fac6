import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { check } from '../src/check.js';
import { defaultProperties } from '../src/defaults.js';
import { checkOptions, levelTriggered } from './workers-target.js';
import type { BenchRow } from './types.js';

/**
 * Memory over a long check (issue 5: 10,000 scenarios in one process do not grow the heap): the
 * heap after a full GC once 1,000 and once 10,000 scenarios have run, in one `check`.
 */
export async function benchHeap(): Promise<BenchRow[]> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const properties = defaultProperties().filter((p) => ['convergence', 'idempotence', 'no-hot-loop'].includes(p.name));
  const at: Record<number, number> = {};
  const mb = (): number => {
    gc();
    gc();
    return process.memoryUsage().heapUsed / 1e6;
  };
  const base = mb();
  const r = await check(levelTriggered, {
    ...checkOptions,
    properties,
    runs: 10_000,
    seed: 3,
    onProgress: (p) => {
      if (p.runs === 1_000 || p.runs === 10_000) at[p.runs] = mb();
    },
  });
  const note = r.ok ? '' : ` (stopped at run ${r.runs}: ${r.property})`;
  return [
    { name: `heap before the check`, value: base, unit: 'MB' },
    { name: `heap after 1,000 scenarios${note}`, value: at[1_000] ?? NaN, unit: 'MB' },
    { name: `heap after 10,000 scenarios${note}`, value: at[10_000] ?? NaN, unit: 'MB', target: '≈ the 1,000 line (no growth)' },
  ];
}
