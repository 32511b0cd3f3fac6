import { describe, expect, it } from 'vitest';
import { check, properties, simulate, type CheckOptions, type ControllerDefinition, type Property } from '../../src/index.js';
import { aimAtSites, isAimed } from '../../src/harness/aim.js';
import { strategiesFor } from '../../src/harness/guided/pool.js';
import { listOrder } from '../../faults/list-order.js';
import { staleSnapshot } from '../../faults/stale-snapshot.js';
import { CLUSTER, MEMBER, clusterScenario } from '../../examples/fault-targets/list-order/cluster.js';
import { clusterBuggy } from '../../examples/fault-targets/list-order/buggy.js';
import { clusterCorrect } from '../../examples/fault-targets/list-order/correct.js';
import { SITE } from '../../examples/fault-targets/reordering/site.js';
import { siteBuggy } from '../../examples/fault-targets/reordering/buggy.js';
import { siteCorrect } from '../../examples/fault-targets/reordering/correct.js';

/**
 * Fault-site-aware swarm search (issue 16): half a run's fault events are aimed at the fault sites
 * of its fault-free twin (a plan of a systematic strategy of the event's kind), so a fault that
 * matters only at a few points of a run lands there. Each aimed strategy finds its target bug with
 * its own fault kind alone, where blind swarm does not in as many runs; nothing on the fixed twin;
 * and the failure found replays, by its scenario and by its seed and path.
 */

interface Case {
  name: string;
  buggy: ControllerDefinition;
  correct: ControllerDefinition;
  options: CheckOptions;
  /** A seed at which aimed swarm finds the bug within `runs` (and blind swarm does not). */
  seed: number;
  runs: number;
  strategy: string;
}

const cases: Case[] = [
  {
    name: 'a permuted list before a write (list-order alone): the cluster that keeps list()[0] deletes its seed member',
    buggy: clusterBuggy,
    correct: clusterCorrect,
    // the default oracle: its benign variations shuffle lists too and make the same wrong choice, but
    // what a shuffled run makes beyond every run in key order is not learned (stop 47; before, this needed learn: false)
    options: { objects: { kind: CLUSTER, name: 'db', spec: [{ members: 3 }, { members: 1 }, { members: 2 }] }, faults: [listOrder], properties: [properties.noExtraDestructiveActions()] },
    // seeds 1-10, 300 runs (shrink off): aimed finds it at a median of 64.5 runs, blind at 143 (seed 3: 7 against 211)
    seed: 3,
    runs: 30,
    strategy: 'permuted-list',
  },
  {
    name: "a stale view across the user's change (stale-snapshot alone): the Site written back from the version the change replaced",
    buggy: siteBuggy,
    correct: siteCorrect,
    options: { objects: { kind: SITE, name: 'shop', spec: [{ replicas: 3 }, { replicas: 5 }] }, faults: [staleSnapshot], properties: [properties.specStatusOwnership(), properties.convergence()] },
    // seeds 1-10, 300 runs: aimed finds it at a median of 101.5 runs, blind at 3 seeds of 10 (seed 8: at 2, blind never)
    seed: 8,
    runs: 30,
    strategy: 'stale-across-change',
  },
];

describe('aimed swarm search', () => {
  for (const c of cases) {
    it(`${c.strategy}: ${c.name}; blind swarm misses it in as many runs; the fixed twin passes`, { timeout: 120_000 }, async () => {
      const base: CheckOptions = { ...c.options, runs: c.runs, seed: c.seed, determinism: false, aimFaults: true };
      const blind = await check(c.buggy, { ...base, aimFaults: false });
      expect(blind.ok ? 'passed' : `found at run ${blind.failedAtRun}`).toBe('passed');
      const aimed = await check(c.buggy, base);
      expect(aimed.ok).toBe(false);
      if (aimed.ok) return;
      // its own fault kind did it: the shrunk reproduction is one fault event of that kind, the aimed one
      expect(aimed.scenario.faults.events.map((e) => e.kind)).toEqual([(c.options.faults![0]!).kind]);
      expect(aimed.scenario.faults.events[0]).toHaveProperty('target', c.buggy.name);
      // the reproduction replays: its scenario runs the same trace again, and seed + path give it back
      const { run } = await simulate(aimed.scenario, { controllers: [c.buggy], faults: c.options.faults!, properties: c.options.properties as Property[] });
      expect(run.hash).toBe(aimed.run.hash);
      const again = await check(c.buggy, { ...c.options, runs: 1, corpus: { scenarios: [aimed.scenario] }, determinism: false, aimFaults: true });
      expect(again.ok ? 'passed' : again.property).toBe(aimed.property);
      const replayed = await check(c.buggy, { ...c.options, seed: aimed.seed, path: aimed.path, determinism: false, aimFaults: true });
      expect(replayed.ok ? 'passed' : replayed.scenario).toEqual(aimed.scenario);
      const correct = await check(c.correct, { ...base, runs: 150 });
      expect(correct.ok ? 'passed' : `${correct.property}: ${correct.summary}`).toBe('passed');
    });
  }

  it('aims half the events: each brings a plan its kind derives from the fault-free twin; every drawn event stays', async () => {
    const events = Array.from({ length: 16 }, (_, nth) => ({ kind: 'list-order', nth, params: { order: 7 } }));
    const s = clusterScenario(clusterBuggy.name, { events, background: [] });
    const { run: twin } = await simulate({ ...s, faults: { events: [], background: [] } }, { controllers: [clusterBuggy], faults: [listOrder] });
    const out = aimAtSites(s, twin, strategiesFor([listOrder]));
    expect(aimAtSites(s, twin, strategiesFor([listOrder]))).toEqual(out);
    const aimed = events.map((e) => isAimed(e));
    expect(aimed.filter(Boolean).length).toBeGreaterThan(3);
    expect(aimed.filter((x) => !x).length).toBeGreaterThan(3);
    // the one list that precedes a write in its reconcile: the Member list of the scale-down (list 2)
    const lists = twin.trace.filter((e) => e.type === 'store:read' && e['verb'] === 'list');
    expect(lists[2]).toMatchObject({ kind: MEMBER, count: 3 });
    // each drawn event stays, an aimed one followed by the plan it brings
    let j = 0;
    events.forEach((e, i) => {
      expect(out.faults.events[j++]).toEqual(e);
      if (aimed[i]) expect(out.faults.events[j++]).toMatchObject({ kind: 'list-order', nth: 2, target: clusterBuggy.name });
    });
    expect(j).toBe(out.faults.events.length);
  });
});
