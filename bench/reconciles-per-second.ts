import { defineController, simulate, type Scenario } from '../src/index.js';
import type { BenchRow } from './types.js';

/** A trivial reconciler: one cached read, then ask to run again in 1 virtual ms. */
const trivial = defineController({
  name: 'trivial',
  for: 'Thing',
  resyncPeriodMs: 0,
  async reconcile(ctx) {
    await ctx.client.tryGet('Thing', ctx.key);
    return { requeueAfter: 1 };
  },
});

/** Scenario with `objects` Things and `ms` of virtual time. */
export function trivialScenario(objects: number, ms: number): Scenario {
  return {
    seed: 1,
    controllers: [{ name: 'trivial' }],
    initialObjects: Array.from({ length: objects }, (_, i) => ({ kind: 'Thing', metadata: { name: `t-${i}`, namespace: 'default' }, spec: { i } })),
    workload: [],
    faults: { events: [], background: [] },
    options: { faultWindowMs: ms, settleMs: 0, relistOnSettle: false },
  };
}

/** Reconciles per wall-clock second through store + informer + queue + trace. */
export async function benchReconcilesPerSecond(): Promise<BenchRow[]> {
  await simulate(trivialScenario(10, 1000), { controllers: [trivial], tailMs: 0 }); // warm-up
  const t0 = performance.now();
  const { run } = await simulate(trivialScenario(10, 20_000), { controllers: [trivial], tailMs: 0 });
  const secs = (performance.now() - t0) / 1000;
  const reconciles = run.trace.filter((e) => e.type === 'reconcile:start').length;
  return [
    { name: 'reconciles/s, full stack, trivial reconciler', value: reconciles / secs, unit: '/s', target: '≥ 100,000 (floor 50,000)' },
  ];
}

/** Wall time per reconcile at 10, 100 and 1,000 objects: should stay flat. */
export async function benchWorldSize(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const per: number[] = [];
  for (const n of [10, 100, 1000]) {
    const ms = Math.max(200, Math.round(200_000 / n));
    const t0 = performance.now();
    const { run } = await simulate(trivialScenario(n, ms), { controllers: [trivial], tailMs: 0 });
    const dt = performance.now() - t0;
    const reconciles = run.trace.filter((e) => e.type === 'reconcile:start').length;
    const us = (dt * 1000) / reconciles;
    per.push(us);
    rows.push({ name: `µs per reconcile with ${n} objects`, value: us, unit: 'µs' });
  }
  rows.push({ name: 'growth 10 → 1,000 objects', value: per[2]! / per[0]!, unit: '×', target: '≤ 1.3×' });
  return rows;
}
