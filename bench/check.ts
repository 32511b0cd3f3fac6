import fc from 'fast-check';
import { check } from '../src/check.js';
import { defaultProperties } from '../src/defaults.js';
import { check as checkWith } from '../src/harness/check.js';
import { staleSnapshot } from '../examples/bug-zoo/stale-snapshot/scenario.js';
import { edgeTriggered } from '../examples/replicas/edge-triggered.js';
import { eventLoss } from '../faults/event-loss.js';
import { convergence } from '../properties/convergence.js';
import type { BenchRow } from './types.js';

/**
 * `check` speed (SPEC §10): scenarios per second for a realistic controller (the zoo's correct
 * ReplicaSet with its pods) with every built-in fault (swarm) and every built-in property, and
 * the time to find and shrink the edge-triggered failure to one dropped event.
 */
export async function benchCheck(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const entry = staleSnapshot;
  // every built-in property, with the ones the zoo configures for this controller in their place
  const own = new Map(entry.properties.map((p) => [p.name, p]));
  const properties = defaultProperties().map((p) => own.get(p.name) ?? p);
  // warm-up: JIT and module caches
  await check(entry.correct, { ...entry.options, properties, runs: 50, seed: 1, shrink: false });

  const runs = 1000;
  const t0 = performance.now();
  const r = await check(entry.correct, { ...entry.options, properties, runs, seed: 2, shrink: false });
  const ms = performance.now() - t0;
  rows.push({ name: `check ${entry.correct[0]!.name}: ${r.runs} scenarios, all faults + properties${r.ok ? '' : ` (stopped: ${r.property})`}`, value: ms, unit: 'ms', target: '1,000 ≤ 5,000 ms (floor 20,000)' });
  rows.push({ name: 'check: scenarios per second', value: (1000 * r.runs) / ms, unit: '/s', target: '≥ 200 (floor 50)' });
  rows.push({ name: 'check: simulations per scenario (twins, determinism)', value: (r.simulations ?? r.runs) / Math.max(1, r.runs), unit: '×' });

  const objects = { kind: 'ReplicaSet', spec: fc.record({ replicas: fc.integer({ min: 1, max: 5 }) }), status: { replicas: 0 } };
  const times: number[] = [];
  let events = 0;
  for (let seed = 1; seed <= 5; seed++) {
    const t1 = performance.now();
    const e = await checkWith(edgeTriggered, { faults: [eventLoss], properties: [convergence()], objects, maxObjects: 3, maxActions: 6, seed });
    times.push(performance.now() - t1);
    if (!e.ok) events = Math.max(events, e.scenario.faults.events.length + e.scenario.faults.background.length);
  }
  times.sort((a, b) => a - b);
  rows.push({ name: 'find + shrink edge-triggered failure (median of 5 seeds)', value: times[2]!, unit: 'ms', target: '≤ 5,000 ms' });
  rows.push({ name: 'edge-triggered shrunk fault events (max of 5 seeds)', value: events, unit: 'events', target: '1' });
  return rows;
}
